import { routePathTemplates, type HttpMethod, type RoutePathParam } from '@portcullis/config';
import { resolveHandler } from '../handlers/resolve-handler.js';
import type { GatewayRoute } from '../router/route-types.js';
import { parseParameterSpecs, ParameterSpecError } from '../sanitize/index.js';
import { errorResponses, routeErrors, type RouteShape } from './error-responses.js';
import { SANITIZER_DESCRIPTIONS } from './sanitizer-descriptions.js';
import type { DocumentContext, JsonObject, OpenApiMethod, Operation, PathItem } from './types.js';

/** The methods a `*` route answers that a path item can name (OPTIONS the gateway answers itself). */
const ANY_METHOD: readonly OpenApiMethod[] = ['get', 'put', 'post', 'delete', 'patch'];
const BODY_METHODS: readonly OpenApiMethod[] = ['put', 'post', 'patch'];
const FORM_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

interface Required {
  name: string;
  sanitizer: string;
}

/** A route's required parameters as the request will check them; `invalid` when the specs cannot be used. */
function requiredOf(route: GatewayRoute): { state: RouteShape['requiredParams']; params: Required[] } {
  if (route.target.kind !== 'handler' || route.requiredParams.length === 0)
    return { state: 'none', params: [] };
  try {
    const specs = parseParameterSpecs(route.requiredParams);
    return { state: 'valid', params: specs.map((s) => ({ name: s.name, sanitizer: s.sanitizer })) };
  } catch (err: unknown) {
    if (!(err instanceof ParameterSpecError)) throw err;
    // the request answers 400 PARAMETER_SPEC_INVALID before looking at them
    return { state: 'invalid', params: [] };
  }
}

function sanitized(p: Required | undefined): JsonObject {
  return p ? { 'x-sanitizer': p.sanitizer } : {};
}

function describeSanitizer(p: Required | undefined): string {
  if (!p) return '';
  return ` Required; sanitized with \`${p.sanitizer}\` before the handler sees it: ${SANITIZER_DESCRIPTIONS[p.sanitizer] ?? ''}.`;
}

function pathParameter(param: RoutePathParam, required: Required | undefined): JsonObject {
  const matched =
    param.pattern === undefined
      ? 'One path segment, percent-decoded.'
      : `Percent-decoded, then matched against \`${param.pattern}\`; a \`/\` it allows is sent unescaped (\`%2F\` is refused), and a value outside it finds no route.`;
  return {
    name: param.name,
    in: 'path',
    required: true,
    description: `${matched}${describeSanitizer(required)}`,
    schema: {
      type: 'string',
      ...(param.pattern === undefined ? {} : { pattern: `^(?:${param.pattern})$` }),
      ...sanitized(required),
    },
  };
}

/** A handler route's body: any JSON, form or multipart body, an object with the fields it requires. */
function handlerBody(params: readonly Required[]): JsonObject {
  // without required fields any body is taken: a JSON array or scalar too
  const schema: JsonObject =
    params.length === 0
      ? {}
      : {
          type: 'object',
          properties: Object.fromEntries(
            params.map((p) => [p.name, { description: describeSanitizer(p).trim(), ...sanitized(p) }]),
          ),
          required: params.map((p) => p.name),
        };
  return {
    required: params.length > 0,
    description:
      'Merged with the query parameters (the body wins) and the path parameters (they win); of a multipart body, its text fields. Required parameters may come from any of them.',
    content: Object.fromEntries(FORM_TYPES.map((t) => [t, { schema }])),
  };
}

const UPSTREAM_BODY: JsonObject = {
  required: false,
  description: 'Any body, streamed to the upstream Service as sent.',
  content: { '*/*': { schema: {} } },
};

function operationId(method: OpenApiMethod, template: string): string {
  const words = template
    .replace(/[{}]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  return [method, ...words].join('_') || method;
}

interface Variant {
  route: GatewayRoute;
  method: OpenApiMethod;
  template: string;
  params: RoutePathParam[];
}

function operation(v: Variant, ctx: DocumentContext): Operation {
  const { route, method } = v;
  const required = requiredOf(route);
  const inPath = new Set(v.params.map((p) => p.name));
  const rest = required.params.filter((p) => !inPath.has(p.name));
  const hasBody = BODY_METHODS.includes(method);
  const parameters = [
    ...v.params.map((p) =>
      pathParameter(
        p,
        required.params.find((r) => r.name === p.name),
      ),
    ),
    ...(hasBody
      ? []
      : rest.map((p) => ({
          name: p.name,
          in: 'query',
          required: true,
          description: describeSanitizer(p).trim(),
          schema: { type: 'string', ...sanitized(p) },
        }))),
  ];
  const target = route.target;
  const resolvable = target.kind === 'backend' || resolveHandler(ctx.handlers, target.handler) !== undefined;
  const shape: RouteShape = {
    kind: target.kind,
    resolvable,
    hasParams: v.params.length > 0,
    hasPatterns: v.params.some((p) => p.pattern !== undefined),
    rateLimited: route.rateLimit !== undefined,
    hasRoles: route.roles.length > 0,
    requiredParams: required.state,
    isWrite: method !== 'get' && method !== 'head',
  };
  // no Service address or handler name: the document may be public
  const summary = target.kind === 'backend' ? 'Forwarded to an upstream Service' : 'Answered by a handler';
  const success: Record<string, JsonObject> =
    target.kind === 'backend'
      ? { default: { description: "The upstream Service's answer: its status, headers and body as sent." } }
      : resolvable
        ? {
            '200': {
              description:
                'The handler\'s answer: an object or array as JSON, a string as `{"message": …}`, nothing as `null`.',
              content: { 'application/json': { schema: {} } },
            },
          }
        : {};
  return {
    operationId: operationId(method, v.template),
    summary,
    description: `Route \`${route.id}\` (${route.method} \`${route.path}\`).${route.method === '*' ? ' Any method.' : ''}`,
    'x-route-id': route.id,
    security: routeSecurity(route, ctx),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(hasBody ? { requestBody: target.kind === 'handler' ? handlerBody(rest) : UPSTREAM_BODY } : {}),
    responses: { ...success, ...errorResponses(routeErrors(shape, ctx)) },
  };
}

/**
 * A route that needs a caller takes a user's credentials or an application's key (alternatives); a route
 * with roles names them as the requirement's roles, in mode none too (only a key can hold them there).
 */
function routeSecurity(route: GatewayRoute, ctx: DocumentContext): JsonObject[] {
  if (route.roles.length === 0 && !(route.auth && ctx.mode !== 'none')) return [];
  return [...securityOf(ctx), { apiKey: [] }].map((req) =>
    Object.fromEntries(Object.keys(req).map((scheme) => [scheme, [...route.roles]])),
  );
}

/** The security requirement of a route that needs a caller, in the configured auth mode. */
export function securityOf(ctx: DocumentContext): JsonObject[] {
  switch (ctx.mode) {
    case 'none':
      return [];
    case 'jwt':
      return [{ bearerJwt: [] }];
    case 'session':
      return [{ sessionCookie: [] }];
    default: {
      const unknown: never = ctx.mode;
      throw new Error(`unknown auth mode ${String(unknown)}`);
    }
  }
}

function methodsOf(method: HttpMethod): readonly OpenApiMethod[] {
  if (method === '*') return ANY_METHOD;
  // the gateway answers OPTIONS itself, before any route: an OPTIONS route never runs
  if (method === 'OPTIONS') return [];
  return [method.toLowerCase() as OpenApiMethod];
}

/**
 * The path items of `routes`, in the dispatch order: per method and path, the route that answers it is
 * documented (an own-method route before a `*` one, then the first registered); a later route on the same
 * path and method is left out, and so is a path the gateway answers before any route (`reserved`, and the
 * base path itself).
 */
export function routePathItems(
  routes: readonly GatewayRoute[],
  ctx: DocumentContext,
  reserved: ReadonlySet<string>,
): Record<string, PathItem> {
  const items: Record<string, PathItem> = {};
  const taken = new Set<string>();
  const ordered = [...routes.filter((r) => r.method !== '*'), ...routes.filter((r) => r.method === '*')];
  for (const route of ordered) {
    for (const { template, params } of routePathTemplates(route.path)) {
      if (template === '' || reserved.has(template)) continue;
      const path = `/${template}`;
      for (const method of methodsOf(route.method)) {
        // `/a/{x}` and `/a/{y}` are one path to a router
        const key = `${method} ${path.replace(/\{[^{}]*\}/g, '{}')}`;
        if (taken.has(key)) continue;
        taken.add(key);
        const item = (items[path] ??= {});
        item[method] = operation({ route, method, template, params }, ctx);
      }
    }
  }
  return items;
}
