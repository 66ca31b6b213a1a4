import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { createSelfSignedCertificate, freePort, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';
import { fetchH2 } from './tls-client.js';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('gateway: ApiRoutes over xDS and upstream Services', () => {
  let xds: SotwServer;
  let g: GatewayHarness;
  let backend: { server: Server; port: number };
  let slow: { server: Server; port: number };
  let deadPort: number;
  const seen: Seen[] = [];

  const routes = (extra: object[] = []) => [
    {
      name: 'demo/shop',
      value: codec.encode({
        name: 'demo/shop',
        prefix: 'v1',
        createdAt: '2026-11-22T00:00:00Z',
        routes: [
          {
            name: 'orders',
            method: '*',
            path: 'orders[/{rest:.+}]',
            auth: false,
            backend: {
              service: 'orders',
              namespace: 'demo',
              port: backend.port,
              path: '/internal',
              timeoutSeconds: 2,
            },
          },
          {
            name: 'slow',
            method: 'GET',
            path: 'slow',
            auth: false,
            backend: { service: 'slow', namespace: 'demo', port: slow.port, timeoutSeconds: 1 },
          },
          {
            name: 'dead',
            method: 'GET',
            path: 'dead',
            auth: false,
            backend: { service: 'dead', namespace: 'demo', port: deadPort, timeoutSeconds: 1 },
          },
          ...extra,
        ],
      }),
    },
  ];

  beforeAll(async () => {
    backend = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('latin1'),
        });
        res.writeHead(201, { 'content-type': 'text/plain', 'x-backend': 'orders', connection: 'close' });
        res.end(`got ${req.method} ${req.url}`);
      });
    });
    slow = await listen(() => undefined);
    deadPort = await freePort();
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, routes());
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await g.close();
    await xds.close();
    backend.server.close();
    slow.server.closeAllConnections();
    slow.server.close();
  });

  it('proxies method, path, query, headers and exact body bytes, and streams the answer back', async () => {
    const body = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x41]);
    const r = await fetch(`${g.url}/api/v1/orders/42/items?x=1&y=%20`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream', 'x-user-id': 'spoofed', 'x-trace': 'abc' },
      body,
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-backend')).toBe('orders');
    expect(await r.text()).toBe('got PATCH /internal/orders/42/items?x=1&y=%20');
    const got = seen.at(-1);
    expect(got?.body).toBe(body.toString('latin1'));
    expect(got?.headers['x-trace']).toBe('abc');
    expect(got?.headers['x-user-id']).toBeUndefined();
    expect(got?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(got?.headers['x-forwarded-proto']).toBe('http');
  });

  // issue 15: a path parameter reaches the backend as the client encoded it, never decoded and re-joined
  it.each([
    // traversal out of backend.path, in every encoding
    { path: '/api/v1/orders/..%2f..%2fadmin%2fsecret', expected: '400 BAD_PATH' },
    { path: '/api/v1/orders/%2e%2e%2f%2e%2e%2fadmin%2fsecret', expected: '400 BAD_PATH' },
    { path: '/api/v1/orders/..%5c..%5cadmin', expected: '400 BAD_PATH' },
    { path: '/api/v1/orders/a%2Fb', expected: '400 BAD_PATH' },
    { path: '/api/v1/orders/../../admin/secret', expected: '404 NOT_FOUND' },
    { path: '/api/v1/orders/x/%2e%2e/%2E%2e/.%2e/admin', expected: '404 NOT_FOUND' },
    { path: '/api/v1/orders/a/../b', expected: '/internal/orders/b' },
    { path: '/api/v1/orders/a/./b/.', expected: '/internal/orders/a/b' },
    // out of the base path and back into a look-alike
    { path: '/api/../abcv1/orders/x', expected: '404 NOT_FOUND' },
    { path: '/api/%2e%2e/abcv1/orders/x', expected: '404 NOT_FOUND' },
    // characters that must stay escaped
    { path: '/api/v1/orders/what%3Fx=1%23frag', expected: '/internal/orders/what%3Fx=1%23frag' },
    { path: '/api/v1/orders/a%20b', expected: '/internal/orders/a%20b' },
    { path: '/api/v1/orders/a%00b', expected: '/internal/orders/a%00b' },
    { path: '/api/v1/orders/%E2%80%A8', expected: '/internal/orders/%E2%80%A8' },
    { path: '/api/v1/orders/%252e%252e%252f', expected: '/internal/orders/%252e%252e%252f' },
    { path: '/api/v1/orders/x?q=..%2f%20', expected: '/internal/orders/x?q=..%2f%20' },
    // escapes that are no UTF-8 text: fastify's router refuses them before the gateway sees them
    { path: '/api/v1/orders/%FF', expected: '400 BAD_REQUEST' },
    { path: '/api/v1/orders/%zz', expected: '400 BAD_REQUEST' },
  ])('issue 15: GET $path → $expected', async ({ path, expected }: { path: string; expected: string }) => {
    const r = await g.requestRaw(path);
    if (expected.startsWith('/')) {
      expect([r.status, r.body]).toEqual([201, `got GET ${expected}`]);
    } else {
      const [status, code] = expected.split(' ');
      expect(r.status).toBe(Number(status));
      expect(r.body).toMatchObject({ code });
      expect(r.body).toHaveProperty('error');
    }
  });

  it('answers 504 when the backend is slow and 502 when it is gone, as JSON', async () => {
    const timedOut = await g.request('GET', '/api/v1/slow');
    expect([timedOut.status, timedOut.body]).toEqual([
      504,
      { error: 'upstream timed out', code: 'UPSTREAM_TIMEOUT' },
    ]);
    const gone = await g.request('GET', '/api/v1/dead');
    expect([gone.status, gone.body]).toEqual([
      502,
      { error: 'upstream unavailable', code: 'UPSTREAM_UNAVAILABLE' },
    ]);
  });

  it('issue 20: proxies an HTTP/2 request over TLS as HTTP/1.1, without its pseudo-headers', async () => {
    const cert = await createSelfSignedCertificate();
    const tls = await startGatewayHarness({
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
      GATEWAY_TLS_CERT: cert.cert,
      GATEWAY_TLS_KEY: cert.key,
    });
    try {
      // Node's HTTP/2 client sends no Content-Length: the stream alone carries the body
      const r = await fetchH2(tls.app.port, cert.cert, {
        method: 'POST',
        path: '/api/v1/orders/7?q=1',
        headers: { 'content-type': 'text/plain', 'x-trace': 'h2' },
        body: 'over h2',
      });
      expect([r.status, r.body, r.headers['x-backend']]).toEqual([
        201,
        'got POST /internal/orders/7?q=1',
        'orders',
      ]);
      const got = seen.at(-1);
      expect(got?.body).toBe('over h2');
      expect(Object.keys(got?.headers ?? {}).filter((name) => name.startsWith(':'))).toEqual([]);
      expect(got?.headers).toMatchObject({
        'x-trace': 'h2',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': `localhost:${tls.app.port}`,
        host: `127.0.0.1:${backend.port}`,
      });
    } finally {
      await tls.close();
      await rm(cert.dir, { recursive: true, force: true });
    }
  });

  it('swaps the route table when the resources change, and NACKs a bad one keeping the last', async () => {
    expect((await g.request('GET', '/api/v1/hi')).status).toBe(404);
    xds.setResources(
      API_ROUTE_TYPE,
      routes([{ name: 'hi', method: 'GET', path: 'hi', auth: false, handler: 'Example.ping' }]),
    );
    await waitUntil(async () => (await g.request('GET', '/api/v1/hi')).status === 200);
    expect((await g.request('GET', '/api/v1/hi')).body).toEqual({ message: 'pong' });
    const nacks: string[] = [];
    xds.on('nack', (e) => nacks.push(e.message));
    xds.setResources(
      API_ROUTE_TYPE,
      routes([{ name: 'bad', method: 'GET', path: 'x/{oops', auth: false, handler: 'Example.ping' }]),
    );
    await waitUntil(() => nacks.length > 0);
    expect(nacks[0]).toBe('demo/shop: routes[3].path: unclosed "{" at offset 2');
    expect((await g.request('GET', '/api/v1/hi')).status).toBe(200);
  });
});
