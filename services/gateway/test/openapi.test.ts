import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Validator } from '@seriousme/openapi-schema-validator';
import { freePort, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import {
  OPENAPI_METHODS,
  type JsonObject,
  type OpenApiDocument,
  type Operation,
} from '../src/openapi/types.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';
import { encodeShopApiRoute } from './shop-api-route.js';

const PASSWORD = 'correct horse';

async function validate(doc: OpenApiDocument): Promise<void> {
  const result = await new Validator().validate(structuredClone<OpenApiDocument>(doc));
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
}

async function fetchDocument(
  g: GatewayHarness,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag: string | null; doc: OpenApiDocument }> {
  const r = await fetch(`${g.url}/api/openapi.json`, { headers });
  return {
    status: r.status,
    etag: r.headers.get('etag'),
    doc: (r.status === 200 ? await r.json() : undefined) as OpenApiDocument,
  };
}

/** A value for a path parameter that its declared pattern (if any) accepts. */
function pathValue(schema: JsonObject): string {
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  const value = ['1', 'abc', 'a-b'].find((v) => !pattern || pattern.test(v));
  if (value === undefined) throw new Error(`no test value for ${String(schema.pattern)}`);
  return value;
}

function requiredBody(op: Operation): Record<string, string> | undefined {
  const body = op.requestBody as
    { content?: Record<string, { schema?: { required?: string[] } }> } | undefined;
  if (!body) return undefined;
  const names = body.content?.['application/json']?.schema?.required ?? [];
  return Object.fromEntries(names.map((n) => [n, 'x']));
}

/** The request an operation documents: its path parameters filled in, its required query and body fields. */
function requestFor(path: string, op: Operation): { url: string; body: Record<string, string> | undefined } {
  let url = path;
  const query = new URLSearchParams();
  for (const p of (op.parameters ?? []) as Array<{ name: string; in: string; schema: JsonObject }>) {
    if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(pathValue(p.schema)));
    if (p.in === 'query') query.set(p.name, 'x');
  }
  return { url: `/api${url}${query.size > 0 ? `?${query.toString()}` : ''}`, body: requiredBody(op) };
}

describe('gateway: the OpenAPI document of the live routes (routes module + ApiRoutes over xDS)', () => {
  let xds: SotwServer;
  let g: GatewayHarness;
  let backend: Server;
  let backendPort: number;

  const apiRoute = (extra: object[] = []) => [
    {
      name: 'demo/shop',
      value: encodeShopApiRoute([
        { name: 'gone', method: 'GET', path: 'gone', auth: false, handler: 'Missing.method' },
        {
          name: 'orders',
          method: '*',
          path: 'orders[/{rest:.+}]',
          auth: false,
          backend: { service: 'orders', namespace: 'demo', port: backendPort, timeoutSeconds: 2 },
        },
        ...extra,
      ]),
    },
  ];

  beforeAll(async () => {
    backend = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`),
      );
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    backendPort = (backend.address() as AddressInfo).port;
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, apiRoute());
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
    });
    await g.app.backend.accounts.createUser({ username: 'alice', password: PASSWORD });
  });
  afterAll(async () => {
    await g.close();
    await xds.close();
    backend.close();
  });

  async function token(): Promise<string> {
    const r = await g.request('POST', '/api/auth', { body: { username: 'alice', password: PASSWORD } });
    return (r.body as { jwt: string }).jwt;
  }

  it('serves a valid OpenAPI 3.1 document of both sources, with an ETag that answers 304', async () => {
    const r = await fetch(`${g.url}/api/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const etag = r.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const doc = (await r.json()) as OpenApiDocument;
    await validate(doc);
    expect(doc.paths).toHaveProperty(['/users/{id}', 'get']);
    expect(doc.paths).toHaveProperty(['/shop/items/{id}/{field}', 'get']);
    expect(doc.paths).toHaveProperty(['/shop/orders/{rest}', 'patch']);
    const again = await fetch(`${g.url}/api/openapi.json`, { headers: { 'if-none-match': etag } });
    expect([again.status, again.headers.get('etag'), await again.text()]).toEqual([304, etag, '']);
    const listed = await fetch(`${g.url}/api/openapi.json`, {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(listed.status).toBe(304);
    const head = await fetch(`${g.url}/api/openapi.json`, { method: 'HEAD' });
    expect([head.status, head.headers.get('etag')]).toEqual([200, etag]);
    const options = await g.request('OPTIONS', '/api/openapi.json');
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS']);
    const post = await g.request('POST', '/api/openapi.json');
    expect([post.status, post.body, post.headers.get('allow')]).toEqual([
      405,
      { error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' },
      'GET, HEAD, OPTIONS',
    ]);
  });

  it('is rebuilt when the ApiRoutes change: a new route appears, a removed one goes', async () => {
    const before = await fetchDocument(g);
    xds.setResources(
      API_ROUTE_TYPE,
      apiRoute([
        { name: 'hi', method: 'GET', path: 'hi/{name:[a-z]+}', auth: false, handler: 'Example.ping' },
      ]),
    );
    await waitUntil(async () => (await fetchDocument(g)).etag !== before.etag);
    const after = await fetchDocument(g, { 'if-none-match': before.etag ?? '' });
    expect(after.status).toBe(200);
    await validate(after.doc);
    expect(after.doc.paths['/shop/hi/{name}']?.get?.parameters).toEqual([
      expect.objectContaining({
        name: 'name',
        schema: { type: 'string', pattern: '^(?:[a-z]+)$' },
      }) as unknown,
    ]);
    expect(after.doc.info.version).not.toBe(before.doc.info.version);
    xds.setResources(API_ROUTE_TYPE, apiRoute());
    await waitUntil(async () => (await fetchDocument(g)).doc.paths['/shop/hi/{name}'] === undefined);
    expect((await fetchDocument(g)).etag).toBe(before.etag);
  });

  it('answers every documented operation with a documented status, never "Route not found"', async () => {
    const { doc } = await fetchDocument(g);
    const bearer = await token();
    const signOutToken = await token();
    let calls = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of OPENAPI_METHODS) {
        const op = item[method];
        if (!op) continue;
        const { url, body } = requestFor(path, op);
        const headers: Record<string, string> = {};
        const secured = (op.security as unknown[] | undefined)?.length ?? 0;
        if (secured > 0)
          headers.authorization = `Bearer ${op.operationId === 'signOut' ? signOutToken : bearer}`;
        const sent = op.operationId === 'signIn' ? { username: 'alice', password: PASSWORD } : body;
        const r = await g.request(method.toUpperCase(), url, { headers, ...(sent ? { body: sent } : {}) });
        const at = `${method.toUpperCase()} ${url} → ${r.status} ${JSON.stringify(r.body)}`;
        const documented = op.responses[String(r.status)] ?? op.responses.default;
        expect(documented, at).toBeDefined();
        // `default` is the upstream Service's own answer: it must have come from there
        if (!op.responses[String(r.status)]) {
          expect(String(r.body), at).toMatch(new RegExp(`^${method.toUpperCase()} /orders`));
        }
        expect(r.body, at).not.toEqual({ error: 'Route not found', code: 'NOT_FOUND' });
        if (r.status >= 400) {
          const codes = JSON.stringify(documented);
          expect(codes, at).toContain(`"${(r.body as { code: string }).code}"`);
        }
        calls++;
      }
    }
    // the module's 7 routes, the ApiRoute's 4 (the `*` one as five methods at two paths), /auth, the document
    expect(calls).toBe(7 + 2 + 1 + 1 + 10 + 2 + 1);
  });
});

describe('gateway: GATEWAY_OPENAPI', () => {
  it('auth: the document needs the credentials of the auth mode', async () => {
    const g = await startGatewayHarness({ GATEWAY_AUTH: 'jwt', GATEWAY_OPENAPI: 'auth' });
    try {
      await g.app.backend.accounts.createUser({ username: 'bob', password: PASSWORD });
      const refused = await g.request('GET', '/api/openapi.json');
      expect([refused.status, refused.body]).toEqual([
        401,
        { error: 'No Authorization Header found', code: 'UNAUTHENTICATED' },
      ]);
      const signIn = await g.request('POST', '/api/auth', { body: { username: 'bob', password: PASSWORD } });
      const jwt = (signIn.body as { jwt: string }).jwt;
      const r = await fetchDocument(g, { authorization: `Bearer ${jwt}` });
      expect(r.status).toBe(200);
      expect(r.doc.paths['/openapi.json']?.get?.security).toEqual([{ bearerJwt: [] }]);
    } finally {
      await g.close();
    }
  });

  it('off: no document; the path is a route path like any other', async () => {
    const g = await startGatewayHarness({ GATEWAY_OPENAPI: 'off' });
    try {
      const r = await g.request('GET', '/api/openapi.json');
      expect([r.status, r.body]).toEqual([404, { error: 'Route not found', code: 'NOT_FOUND' }]);
    } finally {
      await g.close();
    }
  });
});
