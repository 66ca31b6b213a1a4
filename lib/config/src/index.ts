export { CONFIG_ERRORS, ConfigError, NotSupportedOverXdsError } from './errors.js';
export { formatPath, formatProblem, type ConfigPath, type Problem } from './reader.js';
export {
  RATE_LIMIT_ALGORITHMS,
  RATE_LIMIT_UNITS,
  UNIT_SECONDS,
  type DescriptorRule,
  type LimitedPolicy,
  type RateLimitAlgorithm,
  type RateLimitConfig,
  type RateLimitPolicy,
  type RateLimitUnit,
  type StructValue,
} from './rate-limit-types.js';
export { checkRateLimitConfig, parseRateLimitConfig } from './rate-limit-parse.js';
export { findDanglingReplaces, refuseDanglingReplaces } from './replace-targets.js';
export { parseRateLimitYaml } from './rate-limit-yaml.js';
export { YAML_ONLY_KEYS, checkXdsCompatible, findYamlOnlyKeys } from './xds-fields.js';
export {
  compileRoutePath,
  routePathTemplates,
  type CompiledRoutePath,
  type RoutePathParam,
} from './route-path.js';
export {
  DESCRIPTOR_SOURCES,
  UNNAMED_DESCRIPTOR_SOURCES,
  HTTP_METHODS,
  parseApiRoute,
  ROLE_NAME,
  type ApiRouteSpec,
  type DescriptorSource,
  type HttpMethod,
  type Route,
  type RouteRateLimit,
  type RouteTarget,
} from './api-route.js';
export {
  ENDPOINT_ID,
  MAX_CONCURRENT,
  MAX_FORWARD_TARGETS,
  RETENTION_DEFAULTS,
  parseInboxEndpoint,
  type ForwardTarget,
  type InboxEndpointSpec,
} from './inbox-endpoint.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  HMAC_ALGORITHMS,
  HMAC_ENCODINGS,
  MAX_SECRET_CHARS,
  MAX_TOLERANCE_SECONDS,
  SIGNATURE_PROVIDERS,
  parseSignatureSettings,
  signatureSecretProblem,
  type SecretKeyRef,
  type SignaturePreset,
  type SignatureProvider,
} from './inbox-signature.js';
export {
  BODY_PLACEHOLDER,
  REFUSED_RESPONSE_HEADERS,
  RESPONSE_LIMITS,
  parseEndpointResponse,
  type EndpointResponse,
} from './inbox-response.js';
