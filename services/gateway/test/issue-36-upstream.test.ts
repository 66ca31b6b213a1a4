import { request, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, quietLog, startEntryPoint, type LoggedProcess } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';

// Issue 36: the upstream routes on undici's pool. The gateway runs from its entry point (one process), so its
// peak resident memory (VmHWM) is its own: 200 MiB each way must stream through, never be held.

const MAIN = join(import.meta.dirname, '../src/main.ts');
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const MIB = 1024 * 1024;
const LARGE_BYTES = 200 * MIB;
/**
 * Peak memory the gateway may add while 200 MiB go each way: a buffered body would be all of it. Chunks in
 * flight are freed by the garbage collector, which V8 lets wait until some 64 MiB of them are dead.
 */
const MAX_GROWTH_BYTES = 120 * MIB;

/** `total` bytes in 64 KiB chunks, made as they are read. */
function generated(total: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < total; sent += chunk.length) yield chunk.subarray(0, total - sent);
    })(),
  );
}

async function countBytes(stream: Readable): Promise<number> {
  let bytes = 0;
  for await (const c of stream) bytes += (c as Buffer).length;
  return bytes;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The gateway's peak resident memory so far, from /proc. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

describe('issue 36: upstream routes stream, fail and retry', () => {
  const servers: Server[] = [];
  let xds: SotwServer | undefined;
  let gateway: LoggedProcess | undefined;
  let stateDir: string | undefined;
  let port = 0;
  /** Requests the flaky backend saw, by method; it resets the first of each method. */
  const flakySeen: string[] = [];
  const flakyReset = new Set<string>();
  /** Resolves with the time the streaming backend saw its request closed. */
  let dripClosedAt: (at: number) => void = () => undefined;
  const dripClosed = new Promise<number>((resolve) => (dripClosedAt = resolve));

  const send = (
    method: string,
    path: string,
    body?: Readable,
  ): Promise<{ status: number; headers: IncomingMessage['headers']; res: IncomingMessage }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path, agent: false }, (res) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, res }),
      );
      req.on('error', reject);
      if (body) body.pipe(req);
      else req.end();
    });
  const text = async (method: string, path: string) => {
    const r = await send(method, path);
    return { status: r.status, headers: r.headers, body: (await countText(r.res)).trim() };
  };
  const countText = async (res: IncomingMessage): Promise<string> => {
    let s = '';
    for await (const c of res) s += (c as Buffer).toString();
    return s;
  };

  beforeAll(async () => {
    const big = await listen((req, res) => {
      if (req.method === 'POST') {
        void countBytes(req).then((bytes) => res.end(JSON.stringify({ bytes })));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': LARGE_BYTES });
      void pipeline(generated(LARGE_BYTES), res).catch(() => undefined);
    });
    const reset = await listen((req) => req.socket.destroy());
    const failing = await listen((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'x-backend-error': 'maintenance' });
      res.end('backend down');
    });
    const slow = await listen(() => undefined);
    const flaky = await listen((req, res) => {
      flakySeen.push(req.method ?? '');
      if (!flakyReset.has(req.method ?? '')) {
        flakyReset.add(req.method ?? '');
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => res.end('second time'));
    });
    // a short body (read whole before the answer starts) that stops coming, or whose connection drops
    const shortBody = (then: (res: ServerResponse) => void) =>
      listen((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 100 });
        res.write('0123456789');
        then(res);
      });
    const stall = await shortBody(() => undefined);
    const cut = await shortBody((res) => setTimeout(() => res.socket?.destroy(), 50));
    const drip = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const tick = setInterval(() => res.write('data: tick\n\n'), 100);
      res.on('close', () => {
        clearInterval(tick);
        dripClosedAt(Date.now());
      });
    });
    servers.push(big.server, reset.server, failing.server, slow.server, flaky.server);
    const echo = await listen((req, res) => res.end(req.url));
    servers.push(stall.server, cut.server, drip.server, echo.server);
    const route = (name: string, method: string, backendPort: number, timeoutSeconds = 2) => ({
      name,
      method,
      path: name,
      auth: false,
      backend: { service: name, namespace: 'demo', port: backendPort, timeoutSeconds },
    });
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/i36',
        value: codec.encode({
          name: 'demo/i36',
          routes: [
            route('big', '*', big.port, 120),
            route('reset', 'GET', reset.port),
            route('failing', 'GET', failing.port),
            route('slow', 'GET', slow.port, 1),
            route('flaky', '*', flaky.port),
            route('stall', 'GET', stall.port, 1),
            route('cut', 'GET', cut.port),
            route('drip', 'GET', drip.port, 1),
            route('echo', 'GET', echo.port),
            {
              ...route('inner', 'GET', echo.port),
              backend: { ...route('inner', 'GET', echo.port).backend, path: 'in//' },
            },
          ],
        }),
      },
    ]);
    await xds.start();
    stateDir = await mkdtemp(join(tmpdir(), 'gateway-issue-36-'));
    port = await freePort();
    gateway = await startEntryPoint(MAIN, {
      env: {
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: String(port),
        GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
        GATEWAY_BACKEND_HOST: '127.0.0.1',
        GATEWAY_RATELIMIT_URL: 'none',
        GATEWAY_MAX_BODY_BYTES: String(256 * MIB),
        GATEWAY_REQUEST_TIMEOUT: '5m',
        GATEWAY_STATE_DIR: stateDir,
        GATEWAY_SHUTDOWN_DELAY: '0s',
        LOG_LEVEL: 'error',
      },
      healthUrl: `http://127.0.0.1:${port}/readyz`,
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await xds?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('streams 200 MiB up and 200 MiB down without holding them', async () => {
    const pid = gateway?.child.pid;
    if (pid === undefined) throw new Error('no gateway');
    // warmed: the route table, the pool and the parsers
    expect((await text('POST', '/api/big')).body).toBe('{"bytes":0}');
    const before = await peakRss(pid);
    const up = await send('POST', '/api/big', generated(LARGE_BYTES));
    expect([up.status, await countText(up.res)]).toEqual([200, JSON.stringify({ bytes: LARGE_BYTES })]);
    const down = await send('GET', '/api/big');
    expect([down.status, down.headers['content-length'], await countBytes(down.res)]).toEqual([
      200,
      String(LARGE_BYTES),
      LARGE_BYTES,
    ]);
    expect((await peakRss(pid)) - before).toBeLessThan(MAX_GROWTH_BYTES);
  }, 120_000);

  it('answers 502 as JSON when the backend resets the connection', async () => {
    const r = await text('GET', '/api/reset');
    expect([r.status, JSON.parse(r.body)]).toEqual([
      502,
      { error: 'upstream unavailable', code: 'UPSTREAM_UNAVAILABLE' },
    ]);
  });

  it('answers 504 as JSON when the backend does not answer within the route timeout', async () => {
    const r = await text('GET', '/api/slow');
    expect([r.status, JSON.parse(r.body)]).toEqual([
      504,
      { error: 'upstream timed out', code: 'UPSTREAM_TIMEOUT' },
    ]);
  });

  it("passes a backend's 5xx through, status, headers and body", async () => {
    const r = await text('GET', '/api/failing');
    expect([r.status, r.headers['x-backend-error'], r.body]).toEqual([503, 'maintenance', 'backend down']);
  });

  it('sends a GET again when its connection failed, never a POST with a body', async () => {
    expect(await text('GET', '/api/flaky')).toMatchObject({ status: 200, body: 'second time' });
    expect(flakySeen).toEqual(['GET', 'GET']);
    const post = await send('POST', '/api/flaky', Readable.from([Buffer.from('once')]));
    expect([post.status, JSON.parse(await countText(post.res))]).toEqual([
      502,
      { error: 'upstream unavailable', code: 'UPSTREAM_UNAVAILABLE' },
    ]);
    expect(flakySeen).toEqual(['GET', 'GET', 'POST']);
  });

  it('reads a short body whole within the route timeout: 504 when it stops coming, 502 when it is cut', async () => {
    const stalled = await text('GET', '/api/stall');
    expect([stalled.status, JSON.parse(stalled.body)]).toEqual([
      504,
      { error: 'upstream timed out', code: 'UPSTREAM_TIMEOUT' },
    ]);
    const cut = await text('GET', '/api/cut');
    expect([cut.status, JSON.parse(cut.body)]).toEqual([
      502,
      { error: 'upstream unavailable', code: 'UPSTREAM_UNAVAILABLE' },
    ]);
  });

  it('streams an answer of unknown length past the route timeout, and drops the backend when the client goes', async () => {
    const r = await send('GET', '/api/drip');
    expect([r.status, r.headers['content-type']]).toEqual([200, 'text/event-stream']);
    const events: string[] = [];
    const started = Date.now();
    // the route's timeout is 1 s: it bounds the wait for the headers, not the stream
    for await (const chunk of r.res) {
      events.push(String(chunk));
      if (Date.now() - started > 1_500) break;
    }
    const gone = Date.now();
    expect(events.join('')).toMatch(/^(data: tick\n\n){10,}$/);
    expect((await dripClosed) - gone).toBeLessThan(2_000);
  });

  it("asks for the backend's path, then the request's segments and query as the client escaped them", async () => {
    expect((await text('GET', '/api/echo?q=%20')).body).toBe('/echo?q=%20');
    expect((await text('GET', '/api/inner')).body).toBe('/in/inner');
  });
});
