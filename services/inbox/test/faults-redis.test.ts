import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

interface Outcome {
  via: 'capture' | 'read';
  status: number;
  code: string | undefined;
  ms: number;
}

/**
 * The inbox under captures and API reads while its Redis is SIGKILLed for ten seconds and brought back on
 * its port. Redis keeps an append-only file, fsynced on every write, so what it acknowledged survives the
 * kill: every capture the inbox answered 200 is there afterwards.
 */
describe('inbox: Redis killed and restarted under load', () => {
  let redisDir: string;
  let redis: RedisServer;
  let h: InboxHarness;
  const redisArgs = (): string[] => ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir];

  beforeAll(async () => {
    redisDir = await mkdtemp(join(tmpdir(), 'inbox-fault-redis-'));
    redis = await startRedis({ args: redisArgs() });
    h = await startInboxHarness({
      REDIS_URL: `redis://${redis.address}`,
      INBOX_RETENTION_MAX_REQUESTS: '100000',
    });
  });
  afterAll(async () => {
    await h.close();
    await redis.stop();
    await rm(redisDir, { recursive: true, force: true });
  });

  it(
    'answers fast 503s while Redis is gone, loses no acknowledged capture, and recovers without a restart',
    { timeout: 90_000 },
    async () => {
      const ep = await h.createEndpoint('fault');
      const acknowledged = new Set<string>();
      const outcomes: Outcome[] = [];
      let running = true;
      let n = 0;
      const capture = async (): Promise<void> => {
        while (running) {
          const started = Date.now();
          const r = await h.send('POST', `/api/hook/${ep.id}`, { body: String(n++) });
          const body = r.json as { requestId?: string; code?: string } | undefined;
          if (r.status === 200 && body?.requestId) acknowledged.add(body.requestId);
          outcomes.push({ via: 'capture', status: r.status, code: body?.code, ms: Date.now() - started });
        }
      };
      const read = async (): Promise<void> => {
        while (running) {
          const started = Date.now();
          const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?limit=5`, { token: ep.token });
          const code = (r.json as { code?: string } | undefined)?.code;
          outcomes.push({ via: 'read', status: r.status, code, ms: Date.now() - started });
        }
      };
      const loops = [capture(), capture(), capture(), read()];
      try {
        await waitUntil(() => acknowledged.size >= 100, 15_000);
        await redis.kill();
        // ten seconds: long enough for ioredis' default reconnection delay to grow past a second
        await sleep(10_000);
        redis = await startRedis({ port: redis.port, args: redisArgs() });
        const backAt = outcomes.length;
        await waitUntil(() => outcomes.slice(backAt).filter((o) => o.status === 200).length >= 100, 15_000);
      } finally {
        running = false;
        await Promise.all(loops);
      }
      const failures = outcomes.filter((o) => o.status !== 200);
      expect(failures.length).toBeGreaterThan(30);
      expect(new Set(failures.map((o) => `${o.status} ${o.code}`))).toEqual(new Set(['503 UNAVAILABLE']));
      expect(new Set(failures.map((o) => o.via))).toEqual(new Set(['capture', 'read']));
      expect(Math.max(...failures.map((o) => o.ms))).toBeLessThan(1500);

      const stored = new Set<string>();
      let before: string | null = null;
      do {
        const query: string = `limit=100${before === null ? '' : `&before=${before}`}`;
        const page = await h.api('GET', `/api/endpoints/${ep.id}/requests?${query}`, { token: ep.token });
        const json = page.json as { requests: Array<{ id: string }>; nextBefore: string | null };
        for (const r of json.requests) stored.add(r.id);
        before = json.nextBefore;
      } while (before !== null);
      expect([...acknowledged].filter((id) => !stored.has(id))).toEqual([]);
      // a capture whose write reached Redis as it died got a 503 all the same (the outcome was unknown): at
      // most one per capture loop in flight at the kill is stored without having been acknowledged
      expect(stored.size - acknowledged.size).toBeGreaterThanOrEqual(0);
      expect(stored.size - acknowledged.size).toBeLessThanOrEqual(3);
    },
  );
});
