import {
  checkXdsCompatible,
  parseApiRoute,
  parseInboxEndpoint,
  parseRateLimitConfig,
  refuseDanglingReplaces,
  type ApiRouteSpec,
  type DescriptorRule,
  type InboxEndpointSpec,
  type RateLimitConfig,
  type Kind,
} from '@portcullis/config';
import { PROTO_FILES, createMessageCodec, toStruct } from '@portcullis/protos';
import { resourceName } from '../resources.js';
import { readSignatureSecret } from './signature-secret.js';
import type { KindHandler } from './types.js';

const rateLimitCodec = createMessageCodec(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);
const apiRouteCodec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const inboxCodec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint');

/** Upstream's `RateLimitConfig` message, field for field, from a validated configuration. */
export function toRateLimitConfigMessage(name: string, config: RateLimitConfig): Record<string, unknown> {
  const descriptor = (d: DescriptorRule): Record<string, unknown> => {
    const p = d.rateLimit;
    const policy = p && {
      ...(p.unlimited ? { unlimited: true } : { unit: p.unit, requestsPerUnit: p.requestsPerUnit }),
      ...(p.name ? { name: p.name } : {}),
      ...(p.replaces.length > 0 ? { replaces: p.replaces.map((n) => ({ name: n })) } : {}),
    };
    return {
      key: d.key,
      ...(d.value ? { value: d.value } : {}),
      ...(policy ? { rateLimit: policy } : {}),
      ...(d.descriptors.length > 0 ? { descriptors: d.descriptors.map(descriptor) } : {}),
      ...(d.shadowMode ? { shadowMode: true } : {}),
      ...(d.detailedMetric ? { detailedMetric: true } : {}),
      ...(d.quotaMode ? { quotaMode: true } : {}),
      ...(d.metadata ? { metadata: toStruct(d.metadata) } : {}),
    };
  };
  return { name, domain: config.domain, descriptors: config.descriptors.map(descriptor) };
}

const rateLimitConfigs: KindHandler<RateLimitConfig> = {
  typeUrl: rateLimitCodec.typeUrl,
  parse: (name, spec) => {
    const config = parseRateLimitConfig(name, spec);
    refuseDanglingReplaces(config);
    checkXdsCompatible(name, spec);
    return config;
  },
  claims: (c) => [c.domain],
  conflictMessage: (domain, owner) => `domain '${domain}' is already defined by ${owner}, which is older`,
  encode: (r, c) => ({ value: rateLimitCodec.encode(toRateLimitConfigMessage(resourceName(r), c)) }),
};

const apiRoutes: KindHandler<ApiRouteSpec> = {
  typeUrl: apiRouteCodec.typeUrl,
  parse: parseApiRoute,
  claims: (s) => s.routes.map((r) => `${r.method} /${[s.prefix, r.path].filter((p) => p !== '').join('/')}`),
  conflictMessage: (route, owner) => `${route} is already served by ${owner}, which is older`,
  encode: (r, s) => ({
    value: apiRouteCodec.encode({
      name: resourceName(r),
      prefix: s.prefix,
      createdAt: r.metadata.creationTimestamp,
      routes: s.routes.map((route) => ({
        name: route.name,
        method: route.method,
        path: route.path,
        auth: route.auth,
        requiredParams: route.requiredParams,
        roles: route.roles,
        ...(route.target.kind === 'handler'
          ? { handler: route.target.handler }
          : {
              backend: {
                service: route.target.service,
                namespace: route.target.namespace || r.metadata.namespace,
                port: route.target.port,
                path: route.target.path,
                timeoutSeconds: route.target.timeoutSeconds,
                forwardAuthorization: route.target.forwardAuthorization,
              },
            }),
        ...(route.rateLimit
          ? { rateLimit: { ...route.rateLimit, unit: route.rateLimit.unit.toLowerCase() } }
          : {}),
      })),
    }),
  }),
};

const inboxEndpoints: KindHandler<InboxEndpointSpec> = {
  typeUrl: inboxCodec.typeUrl,
  parse: parseInboxEndpoint,
  claims: (s) => [s.endpointId],
  conflictMessage: (id, owner) => `endpoint id '${id}' is already used by ${owner}, which is older`,
  encode: (r, { signature, ...s }, secrets) => {
    const read = signature && readSignatureSecret(r.metadata.namespace, signature, secrets);
    return {
      value: inboxCodec.encode({
        name: resourceName(r),
        ...s,
        ...(signature && read?.secret !== undefined
          ? { signature: { ...signature.preset, secret: read.secret } }
          : {}),
      }),
      ...(read ? { refs: read.refs } : {}),
    };
  },
};

/** The model each kind validates into. */
export interface Models {
  RateLimitConfig: RateLimitConfig;
  ApiRoute: ApiRouteSpec;
  InboxEndpoint: InboxEndpointSpec;
}

export const HANDLERS: { [K in Kind]: KindHandler<Models[K]> } = {
  RateLimitConfig: rateLimitConfigs,
  ApiRoute: apiRoutes,
  InboxEndpoint: inboxEndpoints,
};
