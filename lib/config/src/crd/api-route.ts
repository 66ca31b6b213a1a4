import { readOrThrow, type ConfigPath, type Reader } from '../reader.js';
import { compileRoutePath } from '../route-path.js';
import type { CrdSource } from './crd-source.js';
import { readRouteRateLimit, routeRateLimitSchema, type RouteRateLimit } from './route-rate-limit.js';
import { bool, int, list, obj, rule, str } from './schema.js';

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', '*'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type RouteTarget =
  | { kind: 'handler'; handler: string }
  | {
      kind: 'backend';
      service: string;
      namespace: string;
      port: number;
      path: string;
      timeoutSeconds: number;
      /** The caller's `Authorization` goes on to the Service; otherwise the gateway keeps it. */
      forwardAuthorization: boolean;
    };

export interface Route {
  name: string;
  method: HttpMethod;
  path: string;
  auth: boolean;
  requiredParams: string[];
  /** Any one of them admits the caller (a user's or an application's role); empty: no role needed. */
  roles: string[];
  target: RouteTarget;
  rateLimit: RouteRateLimit | undefined;
}

export interface ApiRouteSpec {
  prefix: string;
  routes: Route[];
}

// the schema's patterns are these expressions' sources: the API server and the parser test the same text
const BACKEND_TIMEOUT_SECONDS = { minimum: 1, maximum: 300, default: 30 } as const;

const HANDLER = /^[A-Za-z_$][A-Za-z0-9_$]*\.[A-Za-z_$][A-Za-z0-9_$]*$/;
const PREFIX_PATTERN = '^[a-z0-9-]+(/[a-z0-9-]+)*$';
const PREFIX = new RegExp(PREFIX_PATTERN);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const PARAM_SPEC = /^[A-Za-z_][A-Za-z0-9_]*(\|[A-Za-z]+)?$/;
/** A role name: what `roles` on routes, users and applications hold. */
export const ROLE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Validates an ApiRoute's `spec` (the custom resource's, or the same fields decoded from xDS) and returns
 * the model the gateway serves. Throws a `ConfigError` listing every problem as `<source>: <path>: <message>`.
 */
export function parseApiRoute(source: string, spec: unknown): ApiRouteSpec {
  return readOrThrow(source, (read) => {
    const m = read.map(spec, [], new Set(['prefix', 'routes'])) ?? {};
    const prefix = read.str(m.prefix, ['prefix']) ?? '';
    if (prefix !== '' && !PREFIX.test(prefix))
      read.fail(['prefix'], 'expected segments of a-z, 0-9 and -, separated by /');
    const items = read.list(m.routes, ['routes']);
    if (items.length === 0) read.fail(['routes'], 'at least one route is required');
    const parsed = items.map((item, i) => ({ i, route: readRoute(read, item, ['routes', i]) }));
    const seen = new Map<string, number>();
    items.forEach((item, i) => {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name !== 'string') return;
      const first = seen.get(name);
      if (first !== undefined)
        read.fail(['routes', i, 'name'], `route name '${name}' is also used by routes[${first}]`);
      else seen.set(name, i);
    });
    const served = new Map<string, number>();
    for (const { i, route } of parsed) {
      if (!route) continue;
      const key = `${route.method} '${route.path}'`;
      const first = served.get(key);
      if (first !== undefined) read.fail(['routes', i], `${key} is also served by routes[${first}]`);
      else served.set(key, i);
    }
    const routes = parsed.flatMap(({ route }) => (route ? [route] : []));
    return { prefix, routes };
  });
}

const ROUTE_KEYS = new Set([
  'name',
  'method',
  'path',
  'auth',
  'requiredParams',
  'roles',
  'handler',
  'backend',
  'rateLimit',
]);

function readRoute(read: Reader, v: unknown, path: ConfigPath): Route | undefined {
  const m = read.map(v, path, ROUTE_KEYS);
  if (!m) return undefined;
  const name = read.str(m.name, [...path, 'name']) ?? '';
  if (!DNS_LABEL.test(name)) read.fail([...path, 'name'], 'expected a DNS label (a-z, 0-9, -)');
  const methodText = (read.str(m.method, [...path, 'method']) ?? '').toUpperCase();
  const method = HTTP_METHODS.find((x) => x === methodText);
  if (!method) read.fail([...path, 'method'], `expected one of ${HTTP_METHODS.join(', ')}`);
  const routePath = (read.str(m.path, [...path, 'path']) ?? '').replace(/^\/+|(?<!\/)\/+$/g, '');
  const compiled = compileRoutePath(routePath);
  if ('problems' in compiled) for (const p of compiled.problems) read.fail([...path, 'path'], p);
  const requiredParams = read.list(m.requiredParams, [...path, 'requiredParams']).flatMap((p, i) => {
    const text = read.str(p, [...path, 'requiredParams', i]) ?? '';
    if (!PARAM_SPEC.test(text))
      return read.fail([...path, 'requiredParams', i], 'expected name or name|sanitizer', []);
    return [text];
  });
  const roles = read.list(m.roles, [...path, 'roles']).flatMap((r, i) => {
    const text = read.str(r, [...path, 'roles', i]) ?? '';
    if (!ROLE_NAME.test(text))
      return read.fail([...path, 'roles', i], 'expected 1-64 characters from A-Z a-z 0-9 _ . : -', []);
    return [text];
  });
  const target = readTarget(read, m, path);
  const auth = m.auth === undefined || m.auth === null ? true : read.bool(m.auth, [...path, 'auth']);
  const rateLimit =
    m.rateLimit == null ? undefined : readRouteRateLimit(read, m.rateLimit, [...path, 'rateLimit']);
  if (!method || !target) return undefined;
  if (roles.length > 0 && !auth) read.fail([...path, 'roles'], 'roles need auth: true');
  // the value is the first of the route's roles the caller holds: without them there is none to take
  for (const d of rateLimit?.descriptors ?? [])
    if (d.from === 'role' && roles.length === 0)
      read.fail([...path, 'rateLimit', 'descriptors'], `'${d.key}': a role source needs the route's roles`);
  return { name, method, path: routePath, auth, requiredParams, roles, target, rateLimit };
}

function readTarget(read: Reader, m: Record<string, unknown>, path: ConfigPath): RouteTarget | undefined {
  if ((m.handler == null) === (m.backend == null)) {
    return read.fail(path, 'exactly one of handler or backend is required');
  }
  if (m.handler != null) {
    const handler = read.str(m.handler, [...path, 'handler']) ?? '';
    if (!HANDLER.test(handler)) return read.fail([...path, 'handler'], 'expected Class.method');
    return { kind: 'handler', handler };
  }
  const at = [...path, 'backend'];
  const b =
    read.map(
      m.backend,
      at,
      new Set(['service', 'namespace', 'port', 'path', 'timeoutSeconds', 'forwardAuthorization']),
    ) ?? {};
  const service = read.str(b.service, [...at, 'service']) ?? '';
  if (!DNS_LABEL.test(service)) read.fail([...at, 'service'], 'expected a Service name (DNS label)');
  const port = read.uint32(b.port, [...at, 'port']);
  if (port < 1 || port > 65_535) read.fail([...at, 'port'], 'expected a port from 1 to 65535');
  const timeoutSeconds =
    b.timeoutSeconds == null
      ? BACKEND_TIMEOUT_SECONDS.default
      : read.uint32(b.timeoutSeconds, [...at, 'timeoutSeconds']);
  return {
    kind: 'backend',
    service,
    namespace: read.str(b.namespace, [...at, 'namespace']) ?? '',
    port,
    path: read.str(b.path, [...at, 'path']) ?? '',
    timeoutSeconds,
    forwardAuthorization:
      b.forwardAuthorization == null
        ? false
        : read.bool(b.forwardAuthorization, [...at, 'forwardAuthorization']),
  };
}

const dnsLabel = { maxLength: 63, pattern: DNS_LABEL.source };

const routeSchema = obj(
  {
    name: str({
      ...dnsLabel,
      description: 'Unique in the resource; names the route in status and rate-limit descriptors.',
    }),
    method: str({ enum: [...HTTP_METHODS], description: '`*` answers any method; HEAD falls back to GET.' }),
    path: str({
      maxLength: 1024,
      description:
        'Relative to /<base>/<prefix>/: segments, `{name}`, `{name:regex}`, optional trailing `[...]`.',
    }),
    auth: bool({ default: true, description: 'false opens the route to anonymous callers.' }),
    requiredParams: list(str({ pattern: PARAM_SPEC.source }), {
      maxItems: 32,
      description: '`name` or `name|sanitizer`, checked before the handler runs.',
    }),
    roles: list(str({ pattern: ROLE_NAME.source }), {
      maxItems: 32,
      description:
        "The caller needs one of these roles (a user's or an API key's application's); else 403 FORBIDDEN. Needs auth.",
    }),
    handler: str({ pattern: HANDLER.source, description: '`Class.method` of the gateway routes module.' }),
    backend: obj(
      {
        service: str(dnsLabel),
        namespace: str(dnsLabel),
        port: int({ minimum: 1, maximum: 65_535 }),
        path: str({ maxLength: 1024, description: 'Prefix put in front of the forwarded path.' }),
        timeoutSeconds: int(BACKEND_TIMEOUT_SECONDS),
        forwardAuthorization: bool({
          default: false,
          description:
            "true sends the caller's Authorization header on to the Service; the gateway keeps it otherwise.",
        }),
      },
      { required: ['service', 'port'] },
    ),
    rateLimit: routeRateLimitSchema,
  },
  {
    required: ['name', 'method', 'path'],
    'x-kubernetes-validations': [
      rule('has(self.handler) != has(self.backend)', 'exactly one of handler or backend is required'),
    ],
  },
);

export const apiRoute: CrdSource = {
  kind: 'ApiRoute',
  plural: 'apiroutes',
  singular: 'apiroute',
  shortNames: ['ar'],
  description: 'REST routes served by the gateway under its base path, grouped under an optional prefix.',
  spec: obj(
    {
      prefix: str({
        maxLength: 253,
        pattern: PREFIX_PATTERN,
        description: 'First segments after the base path, e.g. `v1` or `v2/admin`.',
      }),
      routes: list(routeSchema, {
        minItems: 1,
        maxItems: 128,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    },
    { required: ['routes'] },
  ),
  printerColumns: [{ name: 'Prefix', type: 'string', jsonPath: '.spec.prefix' }],
};
