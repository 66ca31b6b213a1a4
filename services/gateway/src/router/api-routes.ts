import { parseApiRoute } from '@portcullis/config';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import type { GatewayRoute } from './route-types.js';

export const API_ROUTE_TYPE = 'type.googleapis.com/portcullis.config.v1.ApiRoute';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

interface ApiRouteMessage {
  name?: string;
  prefix?: string;
  createdAt?: string;
  routes?: Array<{
    name?: string;
    method?: string;
    path?: string;
    auth?: boolean;
    requiredParams?: string[];
    roles?: string[];
    handler?: string;
    backend?: {
      service?: string;
      namespace?: string;
      port?: number;
      path?: string;
      timeoutSeconds?: number;
      forwardAuthorization?: boolean;
    };
    rateLimit?: {
      requestsPerUnit?: number;
      unit?: string;
      shadowMode?: boolean;
      descriptors?: Array<{ key?: string; from?: string; name?: string }>;
    };
  }>;
}

/**
 * The routes of the ApiRoute resources received over xDS, oldest resource first (the operator already
 * rejected conflicts; the order settles what the router cannot). Each is validated again with the shared
 * parser, so a resource from a foreign management server gets the same checks. Throws `ConfigError`.
 */
export function routesFromApiRoutes(resources: ReadonlyArray<{ value: Uint8Array }>): GatewayRoute[] {
  const messages = resources.map((r) => codec.decode(r.value) as ApiRouteMessage);
  messages.sort(
    (a, b) =>
      (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || (a.name ?? '').localeCompare(b.name ?? ''),
  );
  return messages.flatMap((m) => {
    const name = m.name ?? '';
    const spec = parseApiRoute(name, {
      prefix: m.prefix,
      routes: (m.routes ?? []).map((r) => ({
        name: r.name,
        method: r.method,
        path: r.path,
        auth: r.auth ?? false,
        requiredParams: r.requiredParams,
        roles: r.roles,
        handler: r.handler,
        backend: r.backend,
        rateLimit: r.rateLimit,
      })),
    });
    return spec.routes.map((route): GatewayRoute => ({
      id: `${name}/${route.name}`,
      prefix: spec.prefix,
      method: route.method,
      path: [spec.prefix, route.path].filter((p) => p !== '').join('/'),
      auth: route.auth,
      requiredParams: route.requiredParams,
      roles: route.roles,
      target: route.target,
      rateLimit: route.rateLimit,
    }));
  });
}
