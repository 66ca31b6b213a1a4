import { redisCli, startRedis, waitUntil } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

const RULES = {
  'a.yaml': [
    'domain: a',
    'descriptors:',
    '  - key: k',
    '    rate_limit: {unit: hour, requests_per_unit: 1000000}',
    '  - key: hot',
    '    rate_limit: {unit: hour, requests_per_unit: 1}',
    '',
  ].join('\n'),
};
const request = (key: string, value: string) => ({
  domain: 'a',
  descriptors: [{ entries: [{ key, value }] }],
});

async function redisStat(port: number, section: string, name: string): Promise<number> {
  const m = new RegExp(`^${name}:(?:calls=)?(\\d+)`, 'm').exec(await redisCli(port, 'INFO', section));
  return Number(m?.[1] ?? 0);
}

describe('Redis under load', () => {
  it('fails fast while Redis is killed under load, never crashes, and resumes when it is back', async () => {
    const redis = await startRedis();
    const h = await startHarness(RULES, { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address });
    const outcomes: Array<{ via: 'http' | 'grpc'; result: number | string; ms: number }> = [];
    let running = true;
    const http = async (): Promise<void> => {
      while (running) {
        const started = Date.now();
        const res = await h.json(request('k', 'load'));
        outcomes.push({ via: 'http', result: res.status, ms: Date.now() - started });
      }
    };
    const grpc = async (): Promise<void> => {
      while (running) {
        const started = Date.now();
        const result = await h.rls.shouldRateLimit(request('k', 'load')).then(
          (r) => String(r.overallCode),
          (e: unknown) => `code ${(e as { code: number }).code}`,
        );
        outcomes.push({ via: 'grpc', result, ms: Date.now() - started });
      }
    };
    const workers = [http(), http(), grpc(), grpc()];
    try {
      await waitUntil(() => outcomes.length >= 100);
      await redis.kill();
      const killedAt = outcomes.length;
      await waitUntil(() => outcomes.slice(killedAt).filter((o) => o.result === 503).length >= 20);
      await waitUntil(() => outcomes.slice(killedAt).filter((o) => o.result === 'code 14').length >= 20);
      const again = await startRedis({ port: redis.port });
      try {
        const backAt = outcomes.length;
        await waitUntil(() => outcomes.slice(backAt).filter((o) => o.result === 200).length >= 20, 10_000);
        await waitUntil(() => outcomes.slice(backAt).filter((o) => o.result === 'OK').length >= 20, 10_000);
      } finally {
        running = false;
        await Promise.all(workers);
        await again.stop();
      }
      expect(new Set(outcomes.map((o) => o.result))).toEqual(new Set([200, 503, 'OK', 'code 14']));
      // failures come at once, not after KVSTORE_TIMEOUT (10 s by default)
      const failures = outcomes.filter((o) => o.result === 503 || o.result === 'code 14');
      expect(Math.max(...failures.map((o) => o.ms))).toBeLessThan(1500);
      expect((await h.get('/healthcheck')).status).toBe(200);
    } finally {
      running = false;
      await Promise.all(workers);
      await h.close();
    }
  });

  it('answers a hot over-limit key from the local cache, without Redis, and counts it', async () => {
    const redis = await startRedis();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: redis.address,
      LOCAL_CACHE_SIZE_IN_BYTES: '1048576',
    });
    try {
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await h.json(request('hot', 'x'))).status);
      expect(statuses).toEqual([200, ...Array<number>(9).fill(429)]);
      // the first over-limit answer needed Redis; the eight after it did not
      expect(await redisStat(redis.port, 'commandstats', 'cmdstat_incrby')).toBe(2);
      expect(h.app.stats.lines()).toContain(
        'ratelimit.service.rate_limit.a.hot.over_limit_with_local_cache: 8',
      );
      expect(h.app.stats.lines()).toContain('ratelimit.service.rate_limit.a.hot.over_limit: 9');
    } finally {
      await h.close();
      await redis.stop();
    }
  });

  it('batches the commands of concurrent requests into few round trips with a pipeline window', async () => {
    const redis = await startRedis();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: redis.address,
      KVSTORE_PIPELINE_WINDOW: '200ms',
    });
    try {
      const readsBefore = await redisStat(redis.port, 'stats', 'total_reads_processed');
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => h.json(request('k', `c${i}`))));
      expect(results.map((r) => r.status)).toEqual(Array<number>(50).fill(200));
      const reads = (await redisStat(redis.port, 'stats', 'total_reads_processed')) - readsBefore;
      expect(await redisStat(redis.port, 'commandstats', 'cmdstat_incrby')).toBe(50);
      // fifty decisions, a handful of flushes (INFO itself is one read)
      expect(reads).toBeLessThan(10);
    } finally {
      await h.close();
      await redis.stop();
    }
  });
});
