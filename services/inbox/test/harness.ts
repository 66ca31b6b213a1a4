import { createHash } from 'node:crypto';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { createScryptHasher } from '@portcullis/accounts';
import type { ForwardTarget } from '@portcullis/config';
import { quietLog, startRedisDeployment, waitUntil, type RedisDeployment } from '@portcullis/testing';
import { afterAll, beforeAll, describe } from 'vitest';
import { startInbox, type InboxApp, type InboxDeps } from '../src/app.js';
import type { CaptureInput } from '../src/contract/capture-records.js';
import { loadSettings } from '../src/settings.js';
import { createInboxStore } from '../src/store/factory.js';
import type { InboxStore } from '../src/store/types.js';
import { startWorkersInbox, WORKERS_START_TIMEOUT_MS } from './workers-inbox.js';

export { quietLog, waitUntil };

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

/** A managed endpoint's forward target; retries come at once: the tests wait for outcomes, never for time. */
export const forwardTarget = (url: string, o: Partial<ForwardTarget> = {}): ForwardTarget => ({
  url,
  pathMode: 'append',
  enabled: true,
  timeoutSeconds: 30,
  maxAttempts: 5,
  initialDelaySeconds: 0,
  maxDelaySeconds: 0,
  maxConcurrent: 32,
  ...o,
});

/** A JSON POST to `url` carrying `{"n": n}`, as the store takes a capture straight (no server in between). */
export function jsonCapture(n: number, url: string): CaptureInput {
  const body = Buffer.from(JSON.stringify({ n }));
  return {
    receivedAt: Date.now(),
    method: 'POST',
    url,
    nestedPath: '',
    httpVersion: '1.1',
    rawHeaders: ['Content-Type', 'application/json'],
    remoteAddress: '127.0.0.1',
    body,
    bodySha256: createHash('sha256').update(body).digest('hex'),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json: unknown;
}

export interface SendOptions {
  /** Flat `[name, value, …]`, sent exactly in this order and case (node:http adds no Host to an array). */
  rawHeaders?: string[];
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Sends the body with `Transfer-Encoding: chunked` in pieces of this size. */
  chunkBytes?: number;
  token?: string;
}

/** An inbox under test, reached over HTTP: in this process or not. */
export interface InboxUnderTest {
  /**
   * The store the inbox keeps its state in: the app's own, or one of this process on the same Redis with
   * the same settings when the inbox runs as processes of its own.
   */
  store: InboxStore;
  /** The app object, when the inbox runs in this process. */
  app?: InboxApp;
  url: string;
  port: number;
  send(method: string, path: string, o?: SendOptions): Promise<RawResponse>;
  /** JSON API call with an optional bearer token; `body` is sent as JSON. */
  api(method: string, path: string, o?: { token?: string; body?: unknown }): Promise<RawResponse>;
  /** Signs up (and so in) through the API; resolves with the `Cookie` header value to send back. */
  signUp(username: string, password?: string): Promise<string>;
  /** Creates an anonymous endpoint: `{id, token, receiveUrl, name}`. */
  createEndpoint(name?: string): Promise<{ id: string; token: string; receiveUrl: string; name: string }>;
  close(): Promise<void>;
}

/** An inbox app in this process. */
export interface InboxHarness extends InboxUnderTest {
  app: InboxApp;
}

/**
 * The in-process fallback limits off: tests create endpoints, accounts and captures far faster than they
 * allow; test/issue-15-caps.test.ts turns them on.
 */
export const NO_FALLBACK_LIMITS = {
  INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE: '0',
  INBOX_FALLBACK_CAPTURE_PER_MINUTE: '0',
  INBOX_FALLBACK_REPLAY_PER_MINUTE: '0',
  INBOX_FALLBACK_SIGN_UP_PER_HOUR: '0',
  INBOX_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: '0',
  INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE: '0',
} as const;

/** The inbox's settings for a Redis deployment. */
export const inboxRedisEnv = (redis: RedisDeployment): Record<string, string> => ({
  INBOX_REDIS_TYPE: redis.type,
  INBOX_REDIS_URL: redis.url,
});

/** What every inbox under test runs with, before the test's own environment. */
const HARNESS_ENV = { INBOX_HOST: '127.0.0.1', INBOX_ADMIN_TOKEN: ADMIN_TOKEN, ...NO_FALLBACK_LIMITS };

/** An inbox app in this process on 127.0.0.1 with a free port and the given environment. */
export async function startInboxHarness(
  env: Record<string, string> = {},
  deps: Partial<InboxDeps> = {},
): Promise<InboxHarness> {
  const app = await startInbox(
    loadSettings({ ...HARNESS_ENV, INBOX_PORT: '0', ...env }),
    // cheap scrypt parameters: sign-ups and sign-ins are many here
    { log: quietLog, liveBlockMs: 200, passwordHasher: createScryptHasher({ ln: 10 }), ...deps },
  );
  return { ...inboxClient(app.port), app, store: app.store, close: () => app.close() };
}

/**
 * How long another process may take to end a live stream: a worker started from the entry point, which has no
 * deps to take, checks that a stream's endpoint and share still exist every 5 s (the app here: 200 ms).
 */
export const LIVE_RECHECK_WAIT_MS = 15_000;

/**
 * The inbox's entry point with INBOX_WORKERS=2 on the Redis of `env`; with no deps to take, it re-checks live
 * streams as slowly as in production (`LIVE_RECHECK_WAIT_MS`) and hashes passwords at the production scrypt
 * cost.
 */
async function startWorkersHarness(env: Record<string, string>): Promise<InboxUnderTest> {
  const { inbox, port } = await startWorkersInbox({ ...HARNESS_ENV, ...env });
  const store = createInboxStore(loadSettings({ ...HARNESS_ENV, ...env }), { log: quietLog });
  return {
    ...inboxClient(port),
    store,
    close: async () => {
      await store.close();
      await inbox.stop(5000);
    },
  };
}

/** Requests to the inbox on `port`, each on a connection of its own. */
function inboxClient(port: number): Omit<InboxUnderTest, 'store' | 'app' | 'close'> {
  const send = (method: string, path: string, o: SendOptions = {}): Promise<RawResponse> =>
    sendRaw(port, method, path, o);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    send,
    api(method, path, o = {}) {
      const body = o.body === undefined ? undefined : JSON.stringify(o.body);
      return send(method, path, {
        ...(o.token === undefined ? {} : { token: o.token }),
        ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      });
    },
    async signUp(username, password = 'correct horse battery') {
      const r = await send('POST', '/api/accounts', {
        body: JSON.stringify({ username, password }),
        headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
      });
      if (r.status !== 201) throw new Error(`sign up: ${r.status} ${r.body.toString()}`);
      return sessionCookie(r.headers);
    },
    async createEndpoint(name) {
      const r = await send('POST', '/api/endpoints', {
        ...(name === undefined
          ? {}
          : { body: JSON.stringify({ name }), headers: { 'content-type': 'application/json' } }),
      });
      if (r.status !== 201) throw new Error(`create endpoint: ${r.status} ${r.body.toString()}`);
      return r.json as { id: string; token: string; receiveUrl: string; name: string };
    },
  };
}

/** The `name=value` of the Set-Cookie an answer carried, as a browser sends it back. */
export function sessionCookie(headers: RawResponse['headers']): string {
  const set = headers['set-cookie'];
  const first = Array.isArray(set) ? set[0] : set;
  if (!first) throw new Error('no Set-Cookie in the answer');
  return first.split(';')[0] ?? '';
}

export function sendRaw(
  port: number,
  method: string,
  path: string,
  o: SendOptions = {},
): Promise<RawResponse> {
  const body = typeof o.body === 'string' ? Buffer.from(o.body) : o.body;
  let headers: OutgoingHttpHeaders | string[];
  if (o.rawHeaders) {
    headers = ['Host', `127.0.0.1:${port}`, ...o.rawHeaders];
    if (body && o.chunkBytes === undefined) headers.push('Content-Length', String(body.length));
  } else {
    headers = {
      ...o.headers,
      ...(o.token === undefined ? {} : { authorization: `Bearer ${o.token}` }),
      ...(body && o.chunkBytes === undefined ? { 'content-length': String(body.length) } : {}),
    };
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    // a connection of its own: a pooled one may lead to a server that has closed since (a restarted inbox)
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = buf.length === 0 ? undefined : JSON.parse(buf.toString());
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: buf, json });
      });
      res.on('error', reject);
    });
    // the server may answer (413) and close before the whole body is written; a reset with no answer fails
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!answered || (err.code !== 'EPIPE' && err.code !== 'ECONNRESET')) reject(err);
    });
    if (body && o.chunkBytes !== undefined) {
      for (let i = 0; i < body.length; i += o.chunkBytes) req.write(body.subarray(i, i + o.chunkBytes));
      req.end();
    } else {
      req.end(body);
    }
  });
}

export const STORE_KINDS = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/**
 * Where `describeEachStore` runs a suite: the app in this process, or the entry point with two workers; on the
 * memory store or on a fresh Redis of the given topology.
 */
const INBOX_VARIANTS = [
  { title: 'memory store', redis: undefined, workers: false },
  { title: 'redis store', redis: 'single', workers: false },
  { title: 'redis, 2 workers', redis: 'single', workers: true },
  { title: 'sentinel, 2 workers', redis: 'sentinel', workers: true },
  { title: 'cluster, 2 workers', redis: 'cluster', workers: true },
] as const;
export type InboxVariant = (typeof INBOX_VARIANTS)[number];

/**
 * Runs one behaviour suite in each of `INBOX_VARIANTS`: an app on the memory store, one on a fresh
 * redis-server, and the inbox's entry point with two worker processes sharing its port on a fresh
 * redis-server, Sentinel set and Cluster (each request on a connection of its own, so they go to the workers
 * in turn). Redis runs with one entry per stream node so that its approximate trimming (`MAXLEN ~`, `MINID ~`,
 * which drops whole nodes only) is exact, like the memory store's, and retention is testable.
 */
export function describeEachStore(
  name: string,
  body: (get: () => InboxUnderTest, variant: InboxVariant) => void,
  env: Record<string, string> | (() => Record<string, string>) = {},
): void {
  for (const variant of INBOX_VARIANTS) {
    describe(`${name} (${variant.title})`, () => {
      let redis: RedisDeployment | undefined;
      let h: InboxUnderTest | undefined;
      beforeAll(
        async () => {
          if (variant.redis) {
            redis = await startRedisDeployment(variant.redis, { args: ['--stream-node-max-entries', '1'] });
          }
          const base = typeof env === 'function' ? env() : env;
          const full = { ...base, ...(redis ? inboxRedisEnv(redis) : {}) };
          h = variant.workers ? await startWorkersHarness(full) : await startInboxHarness(full);
        },
        variant.workers ? WORKERS_START_TIMEOUT_MS : undefined,
      );
      afterAll(async () => {
        await h?.close();
        await redis?.stop();
      });
      body(() => {
        if (!h) throw new Error('harness not started');
        return h;
      }, variant);
    });
  }
}
