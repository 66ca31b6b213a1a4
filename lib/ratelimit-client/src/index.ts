export { createRateLimitClient } from './rate-limit-client.js';
export { LIMIT_HEADER_NAMES, retryAfter } from './limit-headers.js';
export { readRateLimitTls } from './tls-settings.js';
export { RateLimitClientClosedError, RateLimitClientOptionsError, UndecidedResponseError } from './errors.js';
export type {
  DecideRequest,
  Decision,
  DescriptorEntry,
  DescriptorStatus,
  FailureReason,
  RateLimitClient,
  RateLimitClientOptions,
  RateLimitClientStats,
  StatusCode,
} from './types.js';
