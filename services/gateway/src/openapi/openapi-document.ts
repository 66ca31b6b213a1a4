import { createHash } from 'node:crypto';
import type { HandlerClasses } from '../handlers/types.js';
import type { GatewayRoute } from '../router/route-types.js';
import type { Settings } from '../settings.js';
import {
  credentialErrors,
  csrfErrors,
  ERROR_SCHEMA,
  errorResponses,
  signInErrors,
} from './error-responses.js';
import { ADMIN_TOKEN_SCHEME, adminPathItems } from './admin-operations.js';
import { withRefreshTokens } from './refresh-operations.js';
import { routePathItems, securityOf } from './route-operations.js';
import type { DocumentContext, JsonObject, OpenApiDocument, PathItem } from './types.js';

/** Below the base path: the document's own path. The gateway answers it before any route. */
export const OPENAPI_PATH = 'openapi.json';
/** Below the base path: sign-in and sign-out, answered before any route. */
export const AUTH_PATH = 'auth';

const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });
const FORMS = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

const DESCRIPTION = `The live routes of this gateway: the routes module and the ApiRoutes received over xDS, rebuilt
when they change. Paths are relative to the server URL (the base path). Every route also answers OPTIONS (204,
\`Allow\`) without credentials, and HEAD where it answers GET. Any request may also be refused by the HTTP edge:
408 \`REQUEST_TIMEOUT\`, 414 \`URI_TOO_LONG\`, 431 \`HEADERS_TOO_LARGE\`, with the same error body.`;

function signInResponse(ctx: DocumentContext): JsonObject {
  switch (ctx.mode) {
    case 'jwt':
      return {
        description: 'Signed in: a Bearer token for `Authorization`.',
        content: json({ type: 'object', required: ['jwt'], properties: { jwt: { type: 'string' } } }),
      };
    case 'session':
      return {
        description: 'Signed in: the session cookie is set.',
        headers: {
          'Set-Cookie': { description: `\`${ctx.cookieName}\`, HttpOnly.`, schema: { type: 'string' } },
        },
        content: json({ type: 'object', required: ['message'], properties: { message: { type: 'string' } } }),
      };
    case 'none':
      return {
        description: 'The credentials hold; auth mode `none` issues nothing.',
        content: json({ type: 'null' }),
      };
    default: {
      const unknown: never = ctx.mode;
      throw new Error(`unknown auth mode ${String(unknown)}`);
    }
  }
}

function authPathItem(ctx: DocumentContext): PathItem {
  const credentials = {
    type: 'object',
    required: ['username', 'password'],
    properties: { username: { type: 'string' }, password: { type: 'string', format: 'password' } },
  };
  return {
    post: {
      operationId: 'signIn',
      summary: 'Sign in',
      description:
        'Rate limited per client address and per user name before the password is checked; an unknown user and a wrong password answer the same 401. The fields may come in the query too (the body wins).',
      security: [],
      requestBody: {
        required: true,
        content: Object.fromEntries(FORMS.map((t) => [t, { schema: credentials }])),
      },
      responses: {
        '200': signInResponse(ctx),
        ...errorResponses([...signInErrors(ctx), ...csrfErrors(ctx, true)]),
      },
    },
    delete: {
      operationId: 'signOut',
      summary: 'Sign out',
      description:
        'jwt: revokes the token until it would expire. session: ends the session and clears the cookie.',
      security: securityOf(ctx),
      responses: {
        '200':
          ctx.mode === 'none'
            ? { description: 'Auth mode `none`: nothing to end.', content: json({ type: 'null' }) }
            : {
                description: 'Signed out.',
                content: json({
                  type: 'object',
                  required: ['message'],
                  properties: { message: { type: 'string' } },
                }),
              },
        ...errorResponses([...credentialErrors(ctx), ...csrfErrors(ctx, true)]),
      },
    },
  };
}

function documentPathItem(ctx: DocumentContext): PathItem {
  return {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'Rebuilt when the routes change; `If-None-Match` with its `ETag` answers 304 until then.',
      security: ctx.access === 'auth' ? securityOf(ctx) : [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document of the live routes.',
          headers: { ETag: { schema: { type: 'string' } } },
          content: json({ type: 'object' }),
        },
        '304': { description: 'Not modified since the `ETag` sent in `If-None-Match`.' },
        ...errorResponses(credentialErrors(ctx)),
      },
    },
  };
}

function securitySchemes(ctx: DocumentContext): JsonObject {
  const apiKey = {
    type: 'apiKey',
    in: 'header',
    name: ctx.apiKeyHeader,
    description: "An application's API key (admin API or `hack/create-app-key.ts`), in every auth mode.",
  };
  const user = userSecuritySchemes(ctx);
  return { securitySchemes: { ...user, apiKey } };
}

/** The scheme of `GATEWAY_AUTH`'s user credentials, none in mode none. */
function userSecuritySchemes(ctx: DocumentContext): JsonObject {
  switch (ctx.mode) {
    case 'none':
      return {};
    case 'jwt':
      return {
        bearerJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token from `POST /auth`.',
        },
      };
    case 'session':
      return {
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: ctx.cookieName,
          description: 'The session cookie `POST /auth` sets (shared with the inbox web app).',
        },
      };
    default: {
      const unknown: never = ctx.mode;
      throw new Error(`unknown auth mode ${String(unknown)}`);
    }
  }
}

function withAdminScheme(schemes: JsonObject, admin: boolean): JsonObject {
  if (!admin) return schemes;
  const own = (schemes.securitySchemes ?? {}) as JsonObject;
  return { securitySchemes: { ...own, ...ADMIN_TOKEN_SCHEME } };
}

/** What the document takes from the settings and the handler classes. */
export function documentContext(settings: Readonly<Settings>, handlers: HandlerClasses): DocumentContext {
  return {
    basePath: settings.basePath,
    mode: settings.auth,
    cookieName: settings.session.cookieName,
    accountsInRedis: settings.redis.url !== '',
    identityProviders: settings.auth === 'jwt' && settings.idp.issuers.length > 0,
    rateLimitService: settings.ratelimit.target !== '',
    failureMode: settings.ratelimit.failureMode,
    handlers,
    access: settings.openapi,
    apiKeyHeader: settings.apiKeyHeader,
    ...(settings.refresh.mode === 'off' ? {} : { refresh: { mode: settings.refresh.mode } }),
    adminApi: settings.adminToken !== '',
  };
}

/**
 * The OpenAPI 3.1 document of `routes` (the table's, in registration order) and the gateway's own paths;
 * with `admin` (a reader presenting the admin token, while it is set) the admin API's too.
 * `info.version` names the routes: it changes when they do.
 */
export function buildOpenApiDocument(
  routes: readonly GatewayRoute[],
  ctx: DocumentContext,
  o: { admin: boolean } = { admin: false },
): OpenApiDocument {
  const own: Record<string, PathItem> = { [`/${AUTH_PATH}`]: withRefreshTokens(authPathItem(ctx), ctx) };
  if (ctx.access !== 'off') own[`/${OPENAPI_PATH}`] = documentPathItem(ctx);
  const admin = o.admin && ctx.adminApi ? adminPathItems(ctx) : {};
  // a route whose template is an admin path's (below the base path) would take its key: left out here
  const reserved = new Set([
    AUTH_PATH,
    ...(ctx.access === 'off' ? [] : [OPENAPI_PATH]),
    ...Object.keys(admin).map((p) => p.slice(1)),
  ]);
  const paths = { ...own, ...routePathItems(routes, ctx, reserved), ...admin };
  const version = createHash('sha256').update(JSON.stringify(paths)).digest('hex').slice(0, 12);
  return {
    openapi: '3.1.0',
    info: { title: 'Portcullis gateway', version: `routes-${version}`, description: DESCRIPTION },
    servers: [{ url: `/${ctx.basePath}` }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      ...withAdminScheme(securitySchemes(ctx), Object.keys(admin).length > 0),
    },
  };
}
