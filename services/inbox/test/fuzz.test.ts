import { METHODS } from 'node:http';
import fc from 'fast-check';
import {
  checkAnswer,
  checkRawAnswer,
  createHttpClient,
  describeRequest,
  fuzz,
  fuzzTimeoutMs,
  headerValue,
  httpBody,
  httpPath,
  httpRequest,
  rawRequestBytes,
  startRedis,
  type RedisServer,
  type HttpAnswer,
  type HttpClient,
  type HttpRequestSpec,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, STORE_KINDS, startInboxHarness, type InboxHarness } from './harness.js';

// issue 15: the inbox's capture URLs and management API under a few thousand generated requests from a
// fixed seed: never a 5xx, never a stack or an internal name in a body, and the inbox still captures after.
// `{id}`, `{token}` and `{capture}` in a generated request stand for the live endpoint's: the fuzzed
// DELETE may remove it, and a new one takes its place.

/**
 * The web pages answer 503 until `npm run build:web` has built the inspector, which tests do not; anything
 * else runs on the memory store, which is never away.
 */
const deliberate = (path: string): readonly number[] =>
  /^\/(?:inspect(?:[/?#;]|$)|[?#;]|$)/.test(path) ? [503] : [];

const MANAGEMENT_PREFIXES = [
  '/api/endpoints',
  '/api/endpoints/{id}',
  '/api/endpoints/{id}/requests',
  '/api/endpoints/{id}/requests/{capture}',
  '/api/endpoints/{id}/requests/{capture}/body',
  '/api/endpoints/{id}/requests/{capture}/replay',
  '/api/endpoints/{id}/claim',
  '/api/endpoints/{id}/signature',
  '/api/endpoints/ep_0000000000000000',
  '/api/accounts',
  '/api/session',
  '/%61pi/endpoints',
  '/api/%73ession',
  '/healthz',
  '/readyz',
  '/metrics',
  '/',
  '/inspect/{id}',
];

/** Replay targets the egress policy refuses at once: no fuzzed request waits on a connect. */
const REPLAY_TARGETS = [
  'http://127.0.0.1:1/',
  'http://[::127.0.0.1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://0x7f000001/',
  'http://10.0.0.1/',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'gopher://127.0.0.1/',
  'not a url',
];

/** Node's limit on a request's head (16 KiB), less a margin for what the client adds (Host, framing). */
const HOOK_PREFIX = '/api/hook/';
const MAX_HEAD_CHARS = 15 * 1024;

function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a receive URL answers `spec`: a capture (200) at the live endpoint, 404 elsewhere; before that 405
 * for a method node:http does not list (the receive URLs take every one it does), 400 and 414 from the
 * router, 431 from Node's parser for a head over its limit. For paths under `/api/hook/`, already filled.
 */
function expectedCaptureStatus(spec: HttpRequestSpec, live: boolean): number[] {
  const routed = !METHODS.includes(spec.method.toUpperCase())
    ? 405
    : // fastify's router refuses a path whose escapes do not decode (`%FF`, `%zz`) before any route: a gap
      // in "any path", kept visible here rather than hidden
      !isDecodable(spec.path.split(/[?#]/)[0] ?? '')
      ? 400
      : // fastify's router: a parameter (the endpoint id) is at most 100 characters, decoded
        decodeURIComponent(spec.path.slice(HOOK_PREFIX.length).split(/[/?#]/)[0] ?? '').length > 100
        ? 414
        : live
          ? 200
          : 404;
  const head =
    spec.path.length +
    Object.entries(spec.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0);
  return head > MAX_HEAD_CHARS ? [routed, 431] : [routed];
}

describe.each(STORE_KINDS)('inbox fuzz (issue 15), %s store', { timeout: fuzzTimeoutMs() }, (kind) => {
  /** The Redis store's paths again, at half the count: the same API, other failure modes. */
  const runs = (n: number): number => (kind === 'memory' ? n : Math.round(n / 2));
  let redis: RedisServer | undefined;
  let h: InboxHarness;
  let http: HttpClient;
  let endpoint: { id: string; token: string };
  let captureId = '1700000000000-0';
  /** The answer `send` last had, for a check of its own; undefined when it sent nothing (a live stream). */
  let lastAnswer: HttpAnswer | undefined;

  /** A fresh endpoint with one capture, when the fuzzed DELETE took the last one. */
  const ensureEndpoint = async (): Promise<void> => {
    const r = await h.api('GET', `/api/endpoints/${endpoint.id}`, { token: endpoint.token });
    if (r.status === 200) return;
    endpoint = await h.createEndpoint('fuzz');
    const sent = await h.send('POST', `/api/hook/${endpoint.id}`, { body: 'seed' });
    captureId = (sent.json as { requestId: string }).requestId;
  };

  const fill = (text: string): string =>
    text
      .replaceAll('{id}', endpoint.id)
      .replaceAll('{token}', endpoint.token)
      .replaceAll('{capture}', captureId);

  const send = async (spec: HttpRequestSpec): Promise<string | undefined> => {
    const filled: HttpRequestSpec = {
      ...spec,
      path: fill(spec.path),
      headers: Object.fromEntries(Object.entries(spec.headers ?? {}).map(([k, v]) => [k, fill(String(v))])),
    };
    lastAnswer = undefined;
    // a live stream answers forever by design
    if (/\/stream(?:[/?#]|$)/.test(filled.path)) return undefined;
    lastAnswer = await http.send(filled);
    const problem = checkAnswer(lastAnswer, {
      deliberate: deliberate(filled.path),
      sent: describeRequest(filled),
    });
    if (spec.method === 'DELETE') await ensureEndpoint();
    return problem;
  };

  beforeAll(async () => {
    if (kind === 'redis') redis = await startRedis();
    // a secrets key: without one an inbox on Redis answers a signature secret 503 (SECRETS_KEY_MISSING)
    h = await startInboxHarness({
      INBOX_SECRETS_KEY: 'ab'.repeat(32),
      ...(redis ? { REDIS_URL: `redis://${redis.address}` } : {}),
    });
    http = createHttpClient(h.port);
    endpoint = { id: 'none', token: 'none' };
    await ensureEndpoint();
  });
  afterAll(async () => {
    http.close();
    await h.close();
    await redis?.stop();
  });

  it('captures any method, path, headers and body on a receive URL without a 5xx', async () => {
    const liveUrl = (): RegExp => new RegExp(`^/api/hook/${endpoint.id}(?:[/?#]|$)`);
    await fuzz(
      httpRequest([
        '/api/hook/{id}',
        '/api/hook/{id}/',
        '/api/hook/{id}/a/b',
        '/api/hook/ep_nope',
        '/api/hook',
      ]),
      async (spec) => {
        const problem = await send(spec);
        if (problem !== undefined) return problem;
        const path = fill(spec.path);
        const a = lastAnswer;
        // `/api/hook` itself is no receive URL: the API's 404 (or 415 first)
        if (a === undefined || !path.startsWith(HOOK_PREFIX)) return undefined;
        const expected = expectedCaptureStatus({ ...spec, path }, liveUrl().test(path));
        if (!expected.includes(a.status))
          return `${spec.method} ${path}: ${a.status}, not ${expected.join(' or ')}`;
        if (a.status !== 200) return undefined;
        // the id comes from the store's write: the answer names a stored capture
        const id = a.headers['x-inbox-request-id'];
        if (typeof id !== 'string') return `${spec.method} ${path}: 200 without x-inbox-request-id`;
        const body = spec.method === 'HEAD' ? '' : JSON.stringify({ ok: true, requestId: id });
        return a.body === body ? undefined : `${spec.method} ${path}: ${a.body.slice(0, 200)}`;
      },
      { numRuns: runs(1000) },
    );
  });

  it('answers the management API with any credentials, method, path and body without a 5xx', async () => {
    const authorization = fc.oneof(
      fc.constantFrom(
        'Bearer {token}',
        `Bearer ${ADMIN_TOKEN}`,
        'Bearer {token}x',
        'bearer {token}',
        'Basic {token}',
      ),
      headerValue(),
    );
    const body = fc.oneof(
      httpBody(),
      fc
        .record({ name: fc.oneof(fc.string({ maxLength: 250 }), fc.jsonValue({ maxDepth: 1 })) })
        .map((o) => JSON.stringify(o)),
      fc.constantFrom(...REPLAY_TARGETS).map((to) => JSON.stringify({ to })),
      fc
        .record({ username: fc.string({ maxLength: 20 }), password: fc.string({ maxLength: 20 }) })
        .map((o) => JSON.stringify(o)),
    );
    await fuzz(
      httpRequest(MANAGEMENT_PREFIXES, {
        headers: { authorization, 'x-inbox-csrf': fc.constantFrom('1', '') },
        body,
      }),
      send,
      { numRuns: runs(1000) },
    );
  });

  // issue 34: the `path` glob was a backtracking regular expression; one `*a*a…*b` held the process for
  // seconds against a capture at `/aaaa…`. Before the fix this never finished.
  it('searches and exports with adversarial path globs of up to 200 characters without a 5xx', async () => {
    await ensureEndpoint();
    for (const run of ['a'.repeat(60), `${'a'.repeat(60)}b`, `${'ab'.repeat(30)}/`]) {
      expect((await h.send('POST', `/api/hook/${endpoint.id}/${run}`, { body: 'x' })).status).toBe(200);
    }
    const glob = fc
      .tuple(
        fc.constantFrom('', '/', '/a'),
        fc.array(fc.constantFrom('*a', '*aa', '*ab', '*b', '*/', '**', 'a'), {
          minLength: 1,
          maxLength: 100,
        }),
      )
      .map(([head, pieces]) => `${head}${pieces.join('')}`.slice(0, 200));
    const request = fc
      .tuple(fc.constantFrom('requests', 'requests.har', 'requests.ndjson'), glob)
      .map(([route, g]): HttpRequestSpec => ({
        method: 'GET',
        path: `/api/endpoints/{id}/${route}?path=${encodeURIComponent(g)}`,
        headers: { authorization: 'Bearer {token}' },
      }));
    await fuzz(request, send, { numRuns: runs(200) });
  });

  // issue 34: a custom response header `X-A: €` was accepted, then every capture answered 500; a HAR import
  // with one made a capture that could neither be forwarded nor replayed
  it('takes any header name and value where a user sets one, then answers captures and replays without a 5xx', async () => {
    const own = await h.createEndpoint('fuzz-headers');
    const name = fc.oneof(
      fc.constantFrom(
        'X-A',
        'Content-Type',
        'Clear-Site-Data',
        'Location',
        'Refresh',
        'Set-Cookie',
        'Access-Control-Allow-Origin',
        'Cross-Origin-Opener-Policy',
      ),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    const value = fc.oneof(
      headerValue(),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('€', '李雷', '日本 bot', 'a\r\nX-Injected: 1', 'a\u0000b', 'café ÿ', '😀', '\u0100'),
    );
    const api = async (method: string, path: string, body: unknown): Promise<string | undefined> => {
      const r = await h.api(method, path, { token: own.token, body });
      const sent = `${method} ${path} ${JSON.stringify(body)}`;
      return checkAnswer({ status: r.status, body: r.body.toString() }, { sent });
    };
    await fuzz(
      fc.record({ name, value }),
      async (header) => {
        const base = `/api/endpoints/${own.id}`;
        const sentHeader = JSON.stringify(header);
        const set = await api('PUT', `${base}/response`, { headers: [header] });
        if (set !== undefined) return `PUT response ${sentHeader}: ${set}`;
        const captured = await h.send('POST', `/api/hook/${own.id}/x`, { body: 'x' });
        const leak = checkAnswer({ status: captured.status, body: captured.body.toString() });
        if (leak !== undefined) return `capture after ${sentHeader}: ${leak}`;
        for (const refused of ['clear-site-data', 'location', 'refresh', 'set-cookie']) {
          if (captured.headers[refused] !== undefined)
            return `capture after ${sentHeader} carries ${refused}`;
        }
        const request = { method: 'POST', url: '/x', headers: [header], postData: { text: 'x' } };
        const imported = await h.api('POST', `${base}/requests/import`, {
          token: own.token,
          body: { log: { entries: [{ request }] } },
        });
        const importLeak = checkAnswer({ status: imported.status, body: imported.body.toString() });
        if (importLeak !== undefined) return `import ${sentHeader}: ${importLeak}`;
        const [requestId] = (imported.json as { requestIds?: string[] }).requestIds ?? [];
        if (requestId === undefined) return undefined;
        const replay = await api('POST', `${base}/requests/${requestId}/replay`, { to: REPLAY_TARGETS[0] });
        return replay === undefined ? undefined : `replay of ${sentHeader}: ${replay}`;
      },
      { numRuns: runs(200) },
    );
  });

  it('answers malformed HTTP with a 4xx or a close', async () => {
    await fuzz(
      rawRequestBytes(httpPath(['/api/hook/ep_0000000000000000', '/api/endpoints', '/api/session'])),
      (bytes) => checkRawAnswer(h.port, bytes),
      { numRuns: runs(300) },
    );
  });

  it('still captures and lists afterwards', async () => {
    await ensureEndpoint();
    const sent = await h.send('PUT', `/api/hook/${endpoint.id}/after`, { body: 'after' });
    expect(sent.status).toBe(200);
    const list = await h.api('GET', `/api/endpoints/${endpoint.id}/requests?limit=1`, {
      token: endpoint.token,
    });
    expect([list.status, (list.json as { requests: Array<{ method: string }> }).requests[0]?.method]).toEqual(
      [200, 'PUT'],
    );
    expect((await h.send('GET', '/healthz')).status).toBe(200);
  });
});
