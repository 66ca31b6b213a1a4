import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScryptHasher } from '@portcullis/accounts';
import { createCollectingLog } from '@portcullis/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startGateway, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import { startInbox, loadSettings as loadInboxSettings } from '@portcullis/inbox';
import { startRateLimit, loadSettings as loadRateLimitSettings } from '@portcullis/ratelimit';
import { createRuntimeRoot, type RuntimeRoot } from '../services/ratelimit/test/harness.js';

// Issue 15, finding 6: a client that sends its headers and part of its body, or part of its headers, held
// its connection for ever (3,000 such connections held 3,030 descriptors). Every public HTTP surface now
// answers 408 and closes once its request or headers timeout passes, closes a keep-alive connection left
// idle, logs none of it as an error, and serves the next client as before.

const REQUEST_MS = 800;
const HEADERS_MS = 400;
// longer than the request timeout: a silent client mid-request would otherwise be closed without a 408
const IDLE_MS = 1_500;
/** Node looks for late requests every 400 ms here (the smaller timeout, capped at 1 s). */
const SLACK_MS = 1_500;
/** How long a socket is watched before the test calls it held. */
const GIVE_UP_MS = 4_000;

/** Each service's names for the same three timeouts. */
const TIMEOUTS = {
  ratelimit: { HTTP_REQUEST_TIMEOUT: '800ms', HTTP_HEADERS_TIMEOUT: '400ms', HTTP_IDLE_TIMEOUT: '1500ms' },
  gateway: {
    GATEWAY_REQUEST_TIMEOUT: '800ms',
    GATEWAY_HEADERS_TIMEOUT: '400ms',
    GATEWAY_IDLE_TIMEOUT: '1500ms',
  },
  inbox: { INBOX_REQUEST_TIMEOUT: '800ms', INBOX_HEADERS_TIMEOUT: '400ms', INBOX_IDLE_TIMEOUT: '1500ms' },
};

interface Surface {
  port: () => number;
  /** The log of the service behind the port: each service has its own, as cases run concurrently. */
  lines: () => Array<Record<string, unknown>>;
  method: string;
  path: () => string;
  /** A complete body this surface accepts, and the status it answers. */
  body: string;
  status: number;
}

/** What became of a raw connection: its own port, the status line it got, if any, and when it closed. */
interface Outcome {
  localPort: number;
  statusLine: string;
  closedAfterMs: number | undefined;
}

/**
 * Opens a connection, writes `text` and nothing more, and watches it until the server closes it or
 * `GIVE_UP_MS` passes (then `closedAfterMs` is undefined: the server held it).
 */
function sendAndStall(port: number, text: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    let localPort = 0;
    const socket = connect(port, '127.0.0.1', () => {
      localPort = socket.localPort ?? 0;
      socket.write(text);
    });
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ localPort, statusLine: firstLine(answer), closedAfterMs: undefined });
    }, GIVE_UP_MS);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ localPort, statusLine: firstLine(answer), closedAfterMs: performance.now() - started });
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') reject(err);
    });
  });
}

function firstLine(text: string): string {
  return text.split('\r\n')[0] ?? '';
}

function head(s: Surface, port: number, bodyBytes: number): string {
  return (
    `${s.method} ${s.path()} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`
  );
}

describe('issue 15: slow and idle clients on every public HTTP surface', () => {
  const logs = {
    ratelimit: createCollectingLog(),
    gateway: createCollectingLog(),
    inbox: createCollectingLog(),
  };
  const closers: Array<() => Promise<void>> = [];
  let runtime: RuntimeRoot;
  let webDir: string;
  const ports = { ratelimit: 0, ratelimitDebug: 0, gateway: 0, inbox: 0 };
  let endpointId = '';

  beforeAll(async () => {
    runtime = await createRuntimeRoot({
      'slow.yaml':
        'domain: slow\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 1000 }\n',
    });
    const ratelimit = await startRateLimit(
      loadRateLimitSettings({
        ...{ HOST: '127.0.0.1', GRPC_HOST: '127.0.0.1', DEBUG_HOST: '127.0.0.1' },
        ...{ PORT: '0', GRPC_PORT: '0', DEBUG_PORT: '0', RUNTIME_ROOT: runtime.root },
        ...{ RUNTIME_WATCH_ROOT: 'false', BACKEND_TYPE: 'memory', USE_STATSD: 'false' },
        ...TIMEOUTS.ratelimit,
      }),
      { log: logs.ratelimit.log },
    );
    closers.push(() => ratelimit.close());
    ports.ratelimit = ratelimit.ports.http;
    ports.ratelimitDebug = ratelimit.ports.debug;

    const stateDir = await mkdtemp(join(tmpdir(), 'issue-15-gateway-'));
    const gateway = await startGateway(
      loadGatewaySettings({
        ...{ GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', GATEWAY_STATE_DIR: stateDir },
        GATEWAY_RATELIMIT_URL: '127.0.0.1:1',
        ...TIMEOUTS.gateway,
      }),
      { log: logs.gateway.log },
    );
    closers.push(async () => {
      await gateway.close();
      await rm(stateDir, { recursive: true, force: true });
    });
    ports.gateway = gateway.port;

    webDir = await mkdtemp(join(tmpdir(), 'issue-15-web-'));
    const inbox = await startInbox(
      loadInboxSettings({
        ...{ INBOX_HOST: '127.0.0.1', INBOX_PORT: '0', INBOX_WEB_DIR: webDir },
        ...TIMEOUTS.inbox,
        // live streams must beat faster than the idle timeout
        INBOX_SSE_HEARTBEAT: '500ms',
      }),
      { log: logs.inbox.log, passwordHasher: createScryptHasher({ ln: 10 }) },
    );
    closers.push(async () => {
      await inbox.close();
      await rm(webDir, { recursive: true, force: true });
    });
    ports.inbox = inbox.port;
    const created = await fetch(`http://127.0.0.1:${inbox.port}/api/endpoints`, { method: 'POST' });
    endpointId = ((await created.json()) as { id: string }).id;
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await rm(runtime.root, { recursive: true, force: true });
  });

  const SURFACES: Record<string, Surface> = {
    'ratelimit POST /json': {
      port: () => ports.ratelimit,
      lines: () => logs.ratelimit.lines,
      method: 'POST',
      path: () => '/json',
      body: JSON.stringify({ domain: 'slow', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] }),
      status: 200,
    },
    'gateway POST /api/echo/1': {
      port: () => ports.gateway,
      lines: () => logs.gateway.lines,
      method: 'POST',
      path: () => '/api/echo/1',
      body: JSON.stringify({ message: 'hello' }),
      status: 200,
    },
    'inbox capture POST /api/hook/<id>': {
      port: () => ports.inbox,
      lines: () => logs.inbox.lines,
      method: 'POST',
      path: () => `/api/hook/${endpointId}`,
      body: JSON.stringify({ event: 'ping' }),
      status: 200,
    },
    'inbox management POST /api/endpoints': {
      port: () => ports.inbox,
      lines: () => logs.inbox.lines,
      method: 'POST',
      path: () => '/api/endpoints',
      body: JSON.stringify({ name: 'slow' }),
      status: 201,
    },
  };

  it.concurrent.for(Object.entries(SURFACES))('%s', async ([, s], { expect }) => {
    const port = s.port();
    const [partBody, partHeaders, idle] = await Promise.all([
      sendAndStall(port, `${head(s, port, s.body.length)}${s.body.slice(0, 5)}`),
      sendAndStall(port, `${s.method} ${s.path()} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Le`),
      sendAndStall(port, `${head(s, port, s.body.length)}${s.body}`),
    ]);
    const timedOut = {
      statusLine: 'HTTP/1.1 408 Request Timeout',
      closedAfterMs: expect.any(Number) as unknown,
    };
    expect({ partBody, partHeaders }).toEqual({
      partBody: { ...timedOut, localPort: partBody.localPort },
      partHeaders: { ...timedOut, localPort: partHeaders.localPort },
    });
    expect(partBody.closedAfterMs).toBeLessThan(REQUEST_MS + SLACK_MS);
    expect(partHeaders.closedAfterMs).toBeLessThan(HEADERS_MS + SLACK_MS);
    // answered, then the keep-alive connection closed once idle
    expect(idle.statusLine).toBe(`HTTP/1.1 ${s.status} ${s.status === 200 ? 'OK' : 'Created'}`);
    expect(idle.closedAfterMs).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(idle.closedAfterMs).toBeLessThan(IDLE_MS + SLACK_MS);

    const after = await fetch(`http://127.0.0.1:${port}${s.path()}`, {
      method: s.method,
      headers: { 'content-type': 'application/json' },
      body: s.body,
    });
    expect(after.status).toBe(s.status);
    const lines = s.lines();
    expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
    // each refused connection's own line, found by its port in its own service's log
    for (const { localPort } of [partBody, partHeaders]) {
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'debug',
          '@message': 'request refused',
          code: 'REQUEST_TIMEOUT',
          remotePort: localPort,
        }),
      );
    }
  });

  it.concurrent('ratelimit debug port: the same timeouts (HTTP_*_TIMEOUT)', async ({ expect }) => {
    const port = ports.ratelimitDebug;
    const partHeaders = await sendAndStall(port, `GET /stats HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAcc`);
    expect(partHeaders.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(partHeaders.closedAfterMs).toBeLessThan(HEADERS_MS + SLACK_MS);
    expect((await fetch(`http://127.0.0.1:${port}/stats`)).status).toBe(200);
  });
});
