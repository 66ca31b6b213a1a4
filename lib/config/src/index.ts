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
export { ruleStatName, sanitizeStatName } from './stat-name.js';
export { YAML_ONLY_KEYS, checkXdsCompatible, findYamlOnlyKeys } from './xds-fields.js';
export {
  compileRoutePath,
  routePathTemplates,
  type CompiledRoutePath,
  type RoutePathParam,
} from './route-path.js';
export {
  HTTP_METHODS,
  parseApiRoute,
  ROLE_NAME,
  type ApiRouteSpec,
  type HttpMethod,
  type Route,
  type RouteTarget,
} from './crd/api-route.js';
export { DESCRIPTOR_SOURCES, type DescriptorSource, type RouteRateLimit } from './crd/route-rate-limit.js';
export {
  ENDPOINT_ID,
  MAX_CONCURRENT,
  MAX_FORWARD_TARGETS,
  parseInboxEndpoint,
  type ForwardTarget,
  type InboxEndpointSpec,
} from './crd/inbox-endpoint.js';
export {
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
} from './crd/inbox-signature.js';
export {
  BODY_PLACEHOLDER,
  RESPONSE_LIMITS,
  parseEndpointResponse,
  refusedResponseHeader,
  type EndpointResponse,
} from './crd/inbox-response.js';
export { API_VERSION, GROUP, KINDS, VERSION, isKind, type Kind } from './crd/kinds.js';
export { CRD_SOURCES, PLURALS } from './crd/definitions.js';
export { toCrd, type CrdSource } from './crd/crd-source.js';
export type { Condition, ResourceStatus } from './crd/status.js';
export type { RuleReport, ShadowReport } from './crd/shadow-report.js';
