import { connect } from 'node:net';
import { startMemcached, waitUntil, type MemcachedServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeRoot, startHarness, type Harness } from './harness.js';

const RULES = {
  'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
};
const request = (value: string) => ({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value }] }] });

describe('object cache (memcached)', () => {
  let memcached: MemcachedServer;
  let h: Harness;
  beforeAll(async () => {
    memcached = await startMemcached();
    h = await startHarness(RULES, {
      BACKEND_TYPE: 'memcache',
      OBJCACHE_HOST_PORT: memcached.address,
      // one connection: a request's background increment is sent before the next request's read
      OBJCACHE_MAX_IDLE_CONNS: '1',
    });
  });
  afterAll(async () => {
    await h.close();
    await memcached.stop();
  });

  it('counts hits, the increments landing in memcached after the answer', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await h.json(request('v')));
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 429]);
    expect(statuses[1]?.body).toMatchObject({ statuses: [{ code: 'OK', limitRemaining: 0 }] });
    await waitUntil(async () => (await memcachedGet(memcached.port, /^a_k_v_\d+$/)) === '3');
  });

  it('fails a key over 250 characters with a clear error', async () => {
    const res = await h.json(request('x'.repeat(250)));
    expect(res.status).toBe(400);
    const body = res.body as { code: string; error: string };
    expect(body.code).toBe('REQUEST_INVALID');
    expect(body.error).toMatch(
      /^cache key is \d+ bytes long; the object cache \(memcached\) allows at most 250$/,
    );
  });

  it('rejects descriptors with whitespace or control characters', async () => {
    for (const value of ['a b', 'tab\there', 'nul\u0000']) {
      const res = await h.json(request(value));
      expect(res.status).toBe(400);
      expect((res.body as { error: string }).error).toContain('whitespace or control characters');
    }
    const grpc = await h.rls.shouldRateLimit(request('a b')).catch((e: unknown) => e as { code: number });
    expect(grpc).toMatchObject({ code: 3 });
  });
});

describe('object cache (memcached) with the newer algorithms', () => {
  let memcached: MemcachedServer;
  beforeAll(async () => {
    memcached = await startMemcached();
  });
  afterAll(() => memcached.stop());
  const env = () => ({
    BACKEND_TYPE: 'memcache',
    OBJCACHE_HOST_PORT: memcached.address,
    OBJCACHE_MAX_IDLE_CONNS: '1',
  });

  it('runs a sliding window and rate_limits, reading the previous window with the others', async () => {
    const files = {
      's.yaml': [
        'domain: s',
        'descriptors:',
        '  - key: k',
        '    rate_limits:',
        '      - {unit: minute, requests_per_unit: 4, algorithm: sliding_window}',
        '      - {unit: hour, requests_per_unit: 100}',
        '',
      ].join('\n'),
    };
    const clock = { nowMs: 1_800_000_000_000 - 60_000 };
    const h = await startHarness(files, env(), {
      ...(await createRuntimeRoot(files)),
      now: () => clock.nowMs,
    });
    try {
      const ask = (hitsAddend = 1) =>
        h.json({ domain: 's', hitsAddend, descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
      expect((await ask(4)).status).toBe(200);
      await waitUntil(async () => (await memcachedGet(memcached.port, /^s_k_v_1799999940$/)) === '4');
      clock.nowMs = 1_800_000_000_000 + 15_000;
      // floor(4 × 0.75) + 1 = 4
      expect((await ask()).body).toMatchObject({
        statuses: [{ code: 'OK', limitRemaining: 0, currentLimit: { unit: 'MINUTE' } }],
      });
      expect((await ask()).status).toBe(429);
    } finally {
      await h.close();
    }
  });

  it('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: reads, then increments only the limits over', async () => {
    const files = {
      'f.yaml': 'domain: f\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1}\n',
    };
    const h = await startHarness(
      files,
      { ...env(), STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true' },
      { ...(await createRuntimeRoot(files)), now: () => 1_800_000_000_000 },
    );
    const body = (...values: string[]) => ({
      domain: 'f',
      descriptors: values.map((value) => ({ entries: [{ key: 'k', value }] })),
    });
    try {
      expect((await h.json(body('full'))).status).toBe(200);
      await waitUntil(async () => (await memcachedGet(memcached.port, /^f_k_full_1800000000$/)) === '1');
      expect((await h.rls.shouldRateLimit(body('full', 'spare'))).statuses).toMatchObject([
        { code: 'OVER_LIMIT' },
        { code: 'OK', limitRemaining: 1 },
      ]);
      expect((await h.json(body('spare'))).body).toMatchObject({
        statuses: [{ code: 'OK', limitRemaining: 0 }],
      });
    } finally {
      await h.close();
    }
  });

  it('refuses a configuration with burst at load: memcached has no atomic scripts', async () => {
    const files = {
      'b.yaml':
        'domain: b\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1, burst: 5}\n',
    };
    const h = await startHarness(files, { ...env(), FORCE_START_WITHOUT_INITIAL_CONFIG: 'true' });
    try {
      expect(h.app.stats.lines()).toContain('ratelimit.service.config_load_error: 1');
      // no configuration loaded: decisions fail rather than run without the limit
      const res = await h.json({ domain: 'b', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
      expect(res.status).toBe(503);
    } finally {
      await h.close();
    }
  });
});

/** The value of the one key matching `pattern`, read over memcached's text protocol. */
async function memcachedGet(port: number, pattern: RegExp): Promise<string | undefined> {
  const ask = (command: string, until: RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(command));
      let reply = '';
      socket.on('data', (d: Buffer) => {
        reply += d.toString();
        if (until.test(reply)) {
          socket.destroy();
          resolve(reply);
        }
      });
      socket.once('error', reject);
    });
  const dump = await ask('lru_crawler metadump all\r\n', /END\r\n$/);
  const key = [...dump.matchAll(/key=(\S+)/g)]
    .map((m) => decodeURIComponent(m[1] ?? ''))
    .find((k) => pattern.test(k));
  if (!key) return undefined;
  const got = await ask(`get ${key}\r\n`, /END\r\n$/);
  return /\r\n(\S+)\r\nEND/.exec(got)?.[1];
}

describe('object cache (memcached) statistics when it goes away', () => {
  it('counts a failed read in ratelimit.memcache.multiget with code=error, and answers 503', async () => {
    const memcached = await startMemcached();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'memcache',
      OBJCACHE_HOST_PORT: memcached.address,
      OBJCACHE_MAX_IDLE_CONNS: '1',
    });
    try {
      expect((await h.json(request('down'))).status).toBe(200);
      await memcached.kill();
      expect((await h.json(request('down'))).status).toBe(503);
      const stats = (await h.get('/stats', 'debug')).text;
      expect(stats).toContain('ratelimit.memcache.multiget.__code=success: 1\n');
      expect(stats).toContain('ratelimit.memcache.multiget.__code=error: 1\n');
      expect(stats).toContain('ratelimit.memcache.keys_requested: 2\n');
      expect((await h.get('/metrics', 'debug')).text).toContain(
        'ratelimit_memcache_multiget{code="error"} 1',
      );
    } finally {
      await h.close();
      await memcached.stop();
    }
  });
});
