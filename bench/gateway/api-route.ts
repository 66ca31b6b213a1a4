// The routes the gateway serves over xDS in the bench, and the rate-limit rules its limited route needs.

/** The xDS type of `portcullis.config.v1.ApiRoute` resources, as the gateway subscribes to it. */
export const API_ROUTE_TYPE = 'type.googleapis.com/portcullis.config.v1.ApiRoute';

/** `<namespace>/<name>` of the one ApiRoute; its routes' ids are `<this>/<route name>`. */
export const API_ROUTE_NAME = 'bench/gateway';

/** The ApiRoute's prefix: its routes are served under `/api/bench/`. */
export const ROUTE_PREFIX = 'bench';

/** What `Example.ping`, the bare fastify ceiling and the backend all answer. */
export const PONG_BODY = '{"message":"pong"}';

/** The limit no load reaches: every call asks the rate-limit service, none is refused. */
const HUGE_LIMIT = 1_000_000_000;

/**
 * The ApiRoute message (proto-loader object form): `GET up` to a backend Service on 127.0.0.1:`backendPort`
 * (with `GATEWAY_BACKEND_HOST=127.0.0.1`) and `GET limited`, the `Example.ping` handler under a limit per
 * client address.
 */
export function buildApiRoute(backendPort: number): Record<string, unknown> {
  return {
    name: API_ROUTE_NAME,
    prefix: ROUTE_PREFIX,
    createdAt: '2026-01-01T00:00:00Z',
    routes: [
      {
        name: 'up',
        method: 'GET',
        path: 'up',
        auth: false,
        backend: { service: 'backend', namespace: 'bench', port: backendPort, timeoutSeconds: 5 },
      },
      {
        name: 'limited',
        method: 'GET',
        path: 'limited',
        auth: false,
        handler: 'Example.ping',
        rateLimit: {
          requestsPerUnit: HUGE_LIMIT,
          unit: 'second',
          descriptors: [{ key: 'client', from: 'remoteAddress' }],
        },
      },
    ],
  };
}

/**
 * The gateway's rate-limit domain for `limited`, in the shape the operator generates: the gateway asks with
 * `[route=<ApiRoute name>/limited, client=<address>]`; key-only `client` gives each address its counter.
 */
export const GATEWAY_RULES_YAML = `domain: gateway
descriptors:
  - key: route
    value: ${API_ROUTE_NAME}/limited
    descriptors:
      - key: client
        rate_limit:
          unit: second
          requests_per_unit: ${HUGE_LIMIT}
`;
