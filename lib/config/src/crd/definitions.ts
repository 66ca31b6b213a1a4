import { apiRoute } from './api-route.js';
import type { CrdSource } from './crd-source.js';
import { inboxEndpoint } from './inbox-endpoint.js';
import type { Kind } from './kinds.js';
import { rateLimitConfig } from './rate-limit-config.js';

/** Every kind's definition, from which crds/ is generated. */
export const CRD_SOURCES: Readonly<Record<Kind, CrdSource>> = {
  RateLimitConfig: rateLimitConfig,
  ApiRoute: apiRoute,
  InboxEndpoint: inboxEndpoint,
};

/** Each kind's resource name in API paths (`/apis/portcullis.dev/v1alpha1/namespaces/<ns>/<plural>`). */
export const PLURALS: Readonly<Record<Kind, string>> = {
  RateLimitConfig: rateLimitConfig.plural,
  ApiRoute: apiRoute.plural,
  InboxEndpoint: inboxEndpoint.plural,
};
