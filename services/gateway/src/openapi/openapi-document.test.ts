import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { Example } from '../handlers/example.js';
import { routesFromApiRoutes } from '../router/api-routes.js';
import { routesFromModule } from '../router/routes-module.js';
import { HANDLER_CLASSES, routes as exampleRoutes } from '../routes.js';
import { SANITIZERS } from '../sanitize/index.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { SANITIZER_DESCRIPTIONS } from './sanitizer-descriptions.js';
import { OPENAPI_METHODS, type DocumentContext, type OpenApiDocument } from './types.js';
import { encodeShopApiRoute } from '../../test/shop-api-route.js';

const context = (over: Partial<DocumentContext> = {}): DocumentContext => ({
  basePath: 'api',
  mode: 'jwt',
  cookieName: 'portcullis_session',
  accountsInRedis: false,
  identityProviders: false,
  rateLimitService: true,
  failureMode: 'allow',
  handlers: HANDLER_CLASSES,
  access: 'public',
  apiKeyHeader: 'x-api-key',
  adminApi: false,
  ...over,
});

const exampleModule = routesFromModule(exampleRoutes, HANDLER_CLASSES);

const apiRoutes = routesFromApiRoutes([
  {
    value: encodeShopApiRoute([
      { name: 'gone', method: 'GET', path: 'gone', auth: false, handler: 'Missing.method' },
      {
        name: 'bad-spec',
        method: 'GET',
        path: 'bad',
        auth: false,
        requiredParams: ['x|nosuch'],
        handler: 'Example.ping',
      },
      {
        name: 'orders',
        method: '*',
        path: 'orders[/{rest:.+}]',
        auth: false,
        backend: { service: 'orders', namespace: 'demo', port: 8080, path: '/internal', timeoutSeconds: 2 },
      },
      { name: 'orders-get', method: 'GET', path: 'orders', auth: false, handler: 'Example.ping' },
      { name: 'options', method: 'OPTIONS', path: 'opts', auth: false, handler: 'Example.ping' },
    ]),
  },
]);

async function validate(doc: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
}

function operationIds(doc: OpenApiDocument): string[] {
  return Object.values(doc.paths).flatMap((item) =>
    OPENAPI_METHODS.flatMap((m) => item[m]?.operationId ?? []),
  );
}

describe('the OpenAPI document of the live routes', () => {
  it.each(['none', 'session', 'jwt'] as const)(
    'is valid OpenAPI 3.1 in auth mode %s, with unique operation ids',
    async (mode) => {
      const doc = buildOpenApiDocument([...exampleModule, ...apiRoutes], context({ mode }));
      await validate(doc);
      const ids = operationIds(doc);
      expect(new Set(ids).size).toBe(ids.length);
    },
  );

  it('documents the example routes module: paths, parameters with their sanitizers, auth per route', () => {
    const doc = buildOpenApiDocument(exampleModule, context());
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/auth',
        '/echo/{id}',
        '/openapi.json',
        '/ping',
        '/test',
        '/users',
        '/users/{id}',
        '/v1/hello',
        '/v2/hello',
      ].sort(),
    );
    const user = doc.paths['/users/{id}']?.get;
    expect(user?.security).toEqual([{ bearerJwt: [] }, { apiKey: [] }]);
    expect(user?.parameters).toEqual([
      expect.objectContaining({
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', 'x-sanitizer': 'name' },
      }),
    ]);
    expect(user?.responses['400']?.content).toEqual({
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Error' },
            {
              properties: {
                code: {
                  enum: [
                    'BAD_JSON',
                    'BAD_MULTIPART',
                    'BAD_PATH',
                    'BAD_REQUEST',
                    'BODY_TOO_DEEP',
                    'INVALID_ARGUMENT',
                    'MISSING_REQUIRED_PARAMETER',
                  ],
                },
              },
            },
          ],
        },
      },
    });
    expect(user?.responses['401']?.headers).toHaveProperty('WWW-Authenticate');
    expect(doc.paths['/ping']?.get?.security).toEqual([]);
    expect(doc.paths['/ping']?.get?.responses).not.toHaveProperty('429');
    expect(Object.keys(doc.components.securitySchemes as object)).toEqual(['bearerJwt', 'apiKey']);
    expect(doc.components.securitySchemes).toMatchObject({
      bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    });
    expect(doc.servers).toEqual([{ url: '/api' }]);
  });

  it('documents ApiRoutes: declared patterns, optional parts, required parameters, limits, upstreams', () => {
    const doc = buildOpenApiDocument(apiRoutes, context({ failureMode: 'deny' }));
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/auth',
        '/openapi.json',
        '/shop/bad',
        '/shop/gone',
        '/shop/items',
        '/shop/items/{id}',
        '/shop/items/{id}/{field}',
        '/shop/orders',
        '/shop/orders/{rest}',
      ].sort(),
    );
    const item = doc.paths['/shop/items/{id}/{field}']?.get;
    expect(item?.parameters).toEqual([
      expect.objectContaining({
        name: 'id',
        in: 'path',
        schema: { type: 'string', pattern: '^(?:\\d{1,9})$', 'x-sanitizer': 'int' },
      }),
      expect.objectContaining({ name: 'field', in: 'path', schema: { type: 'string' } }),
      expect.objectContaining({
        name: 'lang',
        in: 'query',
        required: true,
        schema: { type: 'string', 'x-sanitizer': 'word' },
      }),
    ]);
    expect(Object.keys(item?.responses ?? {})).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '429',
      '500',
      '503',
    ]);
    expect(item?.responses['429']?.headers).toHaveProperty('Retry-After');
    expect(JSON.stringify(item?.responses['503'])).toContain('RATE_LIMIT_UNAVAILABLE');
    const create = doc.paths['/shop/items']?.post;
    expect(create?.security).toEqual([]);
    expect(create?.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { required: ['title'] } } },
    });
    expect(Object.keys(doc.paths['/shop/gone']?.get?.responses ?? {})).toEqual(['401', '501']);
    expect(JSON.stringify(doc.paths['/shop/bad']?.get?.responses['400'])).toContain('PARAMETER_SPEC_INVALID');
    // the GET route answers GET on `orders` before the `*` one; the `*` route answers the rest
    const orders = doc.paths['/shop/orders'];
    expect(orders?.get?.['x-route-id']).toBe('demo/shop/orders-get');
    expect(orders?.post?.['x-route-id']).toBe('demo/shop/orders');
    expect(Object.keys(orders ?? {}).sort()).toEqual(['delete', 'get', 'patch', 'post', 'put']);
    expect(Object.keys(doc.paths['/shop/orders/{rest}']?.get?.responses ?? {})).toEqual([
      '400',
      '401',
      '404',
      '502',
      '504',
      'default',
    ]);
  });

  it("names JWKS_UNAVAILABLE (503, Retry-After) on every route when identity providers' tokens are taken", () => {
    const ping = (identityProviders: boolean) =>
      buildOpenApiDocument(exampleModule, context({ identityProviders })).paths['/ping']?.get?.responses;
    expect(JSON.stringify(ping(true)?.['503'])).toContain('JWKS_UNAVAILABLE');
    expect(ping(true)?.['503']?.headers).toHaveProperty('Retry-After');
    expect(JSON.stringify(ping(false)?.['503'])).not.toContain('JWKS_UNAVAILABLE');
  });

  it('names the configured session cookie, and only the API key scheme in auth mode none', () => {
    const session = buildOpenApiDocument(exampleModule, context({ mode: 'session', cookieName: 'sid' }));
    expect(Object.keys(session.components.securitySchemes as object)).toEqual(['sessionCookie', 'apiKey']);
    expect(session.components.securitySchemes).toMatchObject({
      sessionCookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
    });
    expect(session.paths['/users']?.get?.security).toEqual([{ sessionCookie: [] }, { apiKey: [] }]);
    const open = buildOpenApiDocument(exampleModule, context({ mode: 'none', apiKeyHeader: 'x-key' }));
    expect(Object.keys(open.components.securitySchemes as object)).toEqual(['apiKey']);
    expect(open.components.securitySchemes).toMatchObject({ apiKey: { in: 'header', name: 'x-key' } });
    expect(open.paths['/users']?.get?.security).toEqual([]);
    // a bad API key is refused on any route, in every mode
    expect(JSON.stringify(open.paths['/users']?.get?.responses['401'])).toContain('UNAUTHENTICATED');
  });

  it("names a route's roles in its security and documents 403 FORBIDDEN, in mode none too", async () => {
    const withRoles = routesFromApiRoutes([
      {
        value: encodeShopApiRoute([
          {
            name: 'audit',
            method: 'GET',
            path: 'audit',
            auth: true,
            roles: ['auditor', 'admin'],
            backend: { service: 'audit', namespace: 'demo', port: 8080, path: '/', timeoutSeconds: 2 },
          },
        ]),
      },
    ]);
    for (const mode of ['jwt', 'none'] as const) {
      const doc = buildOpenApiDocument(withRoles, context({ mode }));
      await validate(doc);
      const audit = doc.paths['/shop/audit']?.get;
      expect(audit?.security).toEqual([
        ...(mode === 'jwt' ? [{ bearerJwt: ['auditor', 'admin'] }] : []),
        { apiKey: ['auditor', 'admin'] },
      ]);
      expect(JSON.stringify(audit?.responses['403'])).toContain('FORBIDDEN');
    }
    const orders = buildOpenApiDocument(apiRoutes, context()).paths['/shop/orders']?.patch;
    expect(orders?.responses).not.toHaveProperty('403');
  });

  it('leaves out its own path when off, and a route there is then documented', () => {
    const routes = routesFromModule(
      [['GET', 'openapi.json', HANDLER_CLASSES.Example as object, 'ping', { auth: false }]],
      HANDLER_CLASSES,
    );
    expect(buildOpenApiDocument(routes, context()).paths['/openapi.json']?.get?.operationId).toBe(
      'getOpenApiDocument',
    );
    expect(
      buildOpenApiDocument(routes, context({ access: 'off' })).paths['/openapi.json']?.get?.['x-route-id'],
    ).toBe('code:GET openapi.json');
  });

  it('changes its version when the routes change', () => {
    const before = buildOpenApiDocument(exampleModule, context());
    expect(buildOpenApiDocument(exampleModule, context()).info.version).toBe(before.info.version);
    expect(buildOpenApiDocument([...exampleModule, ...apiRoutes], context()).info.version).not.toBe(
      before.info.version,
    );
  });

  it('describes every sanitizer', () => {
    expect(Object.keys(SANITIZER_DESCRIPTIONS).sort()).toEqual(Object.keys(SANITIZERS).sort());
  });
});

describe('the OpenAPI document with refresh tokens (issue 20)', () => {
  it.each(['body', 'cookie'] as const)(
    'is valid in %s mode: the refresh grant on POST /auth and its 401 codes',
    async (mode) => {
      const doc = buildOpenApiDocument(exampleModule, context({ refresh: { mode } }));
      await validate(doc);
      const post = doc.paths['/auth']?.post;
      const body = JSON.stringify(post?.requestBody);
      expect(body).toContain('"grant_type":{"const":"refresh_token"}');
      expect(JSON.stringify(post?.responses['401'])).toContain('REFRESH_TOKEN_REUSED');
      expect(JSON.stringify(post?.responses['401'])).toContain('REFRESH_TOKEN_INVALID');
      expect(JSON.stringify(post?.responses['200'])).toContain(
        mode === 'cookie' ? 'Set-Cookie' : 'refresh_token',
      );
    },
  );

  it('leaves /auth as it was while refresh tokens are off', () => {
    const off = buildOpenApiDocument(exampleModule, context());
    expect(JSON.stringify(off.paths['/auth'])).not.toContain('refresh_token');
  });
});

describe('the admin API in the OpenAPI document (issue 20)', () => {
  const ADMIN_PATHS = {
    '/admin/apps': ['post', 'get'],
    '/admin/apps/{id}/keys': ['post', 'get'],
    '/admin/apps/{id}/keys/{keyId}': ['delete'],
    '/admin/users/{id}/roles': ['put'],
  };
  const SESSION_PATHS = {
    '/admin/users/{id}/sessions': ['get', 'delete'],
    '/admin/users/{id}/sessions/{family}': ['delete'],
  };
  const adminPathsOf = (doc: OpenApiDocument) =>
    Object.fromEntries(
      Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/admin/'))
        .map(([path, item]) => [path, Object.keys(item).filter((k) => k !== 'servers')]),
    );

  it.each([
    ['refresh tokens off', {}, ADMIN_PATHS],
    ['refresh tokens on', { refresh: { mode: 'body' } }, { ...ADMIN_PATHS, ...SESSION_PATHS }],
  ] as const)('documents every admin operation (%s), valid, beside the base path', async (_, over, paths) => {
    const doc = buildOpenApiDocument(exampleModule, context({ ...over, adminApi: true }), { admin: true });
    await validate(doc);
    expect(adminPathsOf(doc)).toEqual(paths);
    expect(doc.components.securitySchemes).toHaveProperty('adminToken');
    for (const [path, item] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/admin/'))) {
      expect(item.servers, path).toEqual([{ url: '/' }]);
      for (const method of OPENAPI_METHODS) {
        const op = item[method];
        if (!op) continue;
        expect(op.security, `${method} ${path}`).toEqual([{ adminToken: [] }]);
        expect(JSON.stringify(op.responses['401']), `${method} ${path}`).toContain('UNAUTHENTICATED');
      }
    }
    const created = doc.paths['/admin/apps']?.post;
    expect(Object.keys(created?.responses ?? {})).toEqual(['201', '400', '401', '413']);
    expect(JSON.stringify(created?.responses['400'])).toContain('INVALID_ARGUMENT');
  });

  it('lists the admin API to no other reader, and not while the admin token is empty', () => {
    const reader = buildOpenApiDocument(exampleModule, context({ adminApi: true }));
    expect(adminPathsOf(reader)).toEqual({});
    expect(reader.components.securitySchemes).not.toHaveProperty('adminToken');
    const off = buildOpenApiDocument(exampleModule, context(), { admin: true });
    expect(adminPathsOf(off)).toEqual({});
  });

  it('leaves out a route below the base path whose template is an admin path', () => {
    const clash = routesFromModule([['GET', 'admin/apps', Example, 'ping']], HANDLER_CLASSES);
    const doc = buildOpenApiDocument(clash, context({ adminApi: true }), { admin: true });
    expect(doc.paths['/admin/apps']?.get?.operationId).toBe('adminListApps');
  });
});
