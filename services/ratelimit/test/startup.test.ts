import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCollectingLog, startRedis, waitUntil } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRuntimeRoot, startHarness } from './harness.js';

describe('start-up and failure', () => {
  it('waits for a valid configuration before opening its ports', async () => {
    const at = await createRuntimeRoot({ 'a.yaml': 'domain: a\ndescriptors: nope\n' });
    const { log, lines } = createCollectingLog();
    const logged = (message: string): number => lines.filter((l) => l['@message'] === message).length;
    let started = false;
    const pending = startHarness({}, {}, { ...at, log }).then((h) => {
      started = true;
      return h;
    });
    await waitUntil(() => logged('waiting for a valid configuration') === 1);
    // a second invalid file read after the wait began: had the ports opened, they would have by now
    await writeFile(join(at.configDir, 'a.yaml'), 'domain: a\ndescriptors: still nope\n');
    await waitUntil(() => logged('config rejected, keeping the last good one') === 2);
    expect(started).toBe(false);
    await writeFile(join(at.configDir, 'a.yaml'), 'domain: a\n');
    const h = await pending;
    expect((await h.get('/healthcheck')).status).toBe(200);
    await h.close();
  });

  it('fails decisions with 500 / UNAVAILABLE while Redis is down, and recovers when it is back', async () => {
    const redis = await startRedis();
    const h = await startHarness(
      {
        'a.yaml':
          'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 100}\n',
      },
      {
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        KVSTORE_TIMEOUT: '500ms',
        KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
        KVSTORE_POOL_SIZE: '2',
      },
    );
    const body = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };
    /** Upstream's pool statistics, as /stats prints them. */
    const pool = async (): Promise<string[]> =>
      (await h.get('/stats', 'debug')).text.split('\n').filter((l) => l.startsWith('ratelimit.redis_pool.'));
    try {
      expect((await h.json(body)).status).toBe(200);
      expect(await pool()).toEqual([
        'ratelimit.redis_pool.cx_active: 2',
        'ratelimit.redis_pool.cx_local_close: 0',
        'ratelimit.redis_pool.cx_total: 2',
      ]);
      await redis.kill();
      const down = await h.json(body);
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'rate limit backend failed', code: 'BACKEND_UNAVAILABLE' });
      const grpcErr = await h.rls.shouldRateLimit(body).catch((e: unknown) => e as { code: number });
      expect(grpcErr).toMatchObject({ code: 14 });
      // the health check reads the pool, which notices the loss on its own schedule
      await waitUntil(async () => (await h.get('/healthcheck')).status === 500);
      expect(h.app.stats.counter('call.should_rate_limit.redis_error').value).toBeGreaterThanOrEqual(2);
      const again = await startRedis({ port: redis.port });
      try {
        await waitUntil(async () => (await h.json(body)).status === 200);
        expect((await h.get('/healthcheck')).status).toBe(200);
        // both connections made again
        await waitUntil(async () => (await pool()).includes('ratelimit.redis_pool.cx_active: 2'));
        expect(await pool()).toContain('ratelimit.redis_pool.cx_total: 4');
      } finally {
        await again.stop();
      }
    } finally {
      await h.close();
    }
  });
});
