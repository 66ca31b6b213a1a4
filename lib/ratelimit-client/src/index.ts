export { createRateLimitClient } from './rate-limit-client.js';
export { createLocalRateLimitClient } from './local-client.js';
export { createLocalLimiter, LOCAL_LIMIT_UNITS } from './local-limiter.js';
export { LIMIT_HEADER_NAMES, retryAfter } from './limit-headers.js';
export { enforceRateLimit, toEnforcement, type Enforcement } from './enforce.js';
export { signInDescriptors, signInFallbackRules } from './sign-in.js';
export { readRateLimitTls, type RateLimitTlsNames } from './tls-settings.js';
export {
  createRateLimitClientFromSettings,
  GATEWAY_RATELIMIT_ENV,
  INBOX_RATELIMIT_ENV,
  readRateLimitClientSettings,
  type RateLimitClientDeps,
  type RateLimitClientEnvNames,
  type RateLimitClientSettings,
} from './client-settings.js';
export {
  RATELIMIT_CLIENT_ERRORS,
  RateLimitClientClosedError,
  RateLimitClientOptionsError,
  RateLimitedError,
  RateLimitUnavailableError,
  UndecidedResponseError,
} from './errors.js';
export type {
  DecideRequest,
  Decision,
  DescriptorEntry,
  DescriptorStatus,
  FailureReason,
  LocalLimiter,
  LocalLimiterOptions,
  LocalLimitRule,
  LocalLimitUnit,
  RateLimitClient,
  RateLimitClientOptions,
  RateLimitClientStats,
  StatusCode,
} from './types.js';
