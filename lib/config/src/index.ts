export { ConfigError } from './errors.js';
export {
  RATE_LIMIT_UNITS,
  UNIT_SECONDS,
  type DescriptorRule,
  type RateLimitConfig,
  type RateLimitPolicy,
  type RateLimitUnit,
} from './rate-limit-types.js';
export {
  checkRateLimitConfig,
  formatPath,
  formatProblem,
  parseRateLimitConfig,
  type ConfigPath,
  type Problem,
} from './rate-limit-parse.js';
export { parseRateLimitYaml } from './rate-limit-yaml.js';
