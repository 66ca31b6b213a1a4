import type { RedisClient } from '@portcullis/redis';
import { callRedis, execRedis } from '../store/redis-caller.js';
import type { KeyLayout } from '../store/redis-keys.js';
import { toCircuitReport, type CircuitReports } from './circuit-reports.js';
import { type CircuitReport } from '../contract/forwarding-json.js';

interface Published {
  expiresAt: number;
  reports: CircuitReport[];
}

/**
 * Circuit reports in Redis: `<p>ep:{<id>}:circuits`, a hash of worker name → `{expiresAt, reports}` (JSON).
 * A worker overwrites its field on each publish and deletes it from the endpoints it has nothing more to say
 * about; readers skip expired fields (a worker that died), and the key itself expires a day after the last
 * publish.
 */
export function createRedisCircuitReports(o: {
  redis: RedisClient;
  keys: KeyLayout;
  now?: () => number;
}): CircuitReports {
  const { redis, keys } = o;
  const now = o.now ?? Date.now;
  /** The endpoints this process last reported on, by worker: cleared when it has nothing more to say. */
  const said = new Map<string, Set<string>>();
  return {
    async publish(worker, views, ttlMs) {
      const byEndpoint = new Map<string, CircuitReport[]>();
      for (const v of views)
        byEndpoint.set(v.endpointId, [...(byEndpoint.get(v.endpointId) ?? []), toCircuitReport(worker, v)]);
      const before = said.get(worker) ?? new Set<string>();
      if (byEndpoint.size === 0 && before.size === 0) return;
      const tx = redis.pipeline();
      for (const id of before) if (!byEndpoint.has(id)) tx.hdel(keys.circuits(id), worker);
      for (const [id, reports] of byEndpoint) {
        const value: Published = { expiresAt: now() + ttlMs, reports };
        tx.hset(keys.circuits(id), worker, JSON.stringify(value)).pexpire(keys.circuits(id), 86_400_000);
      }
      await execRedis('HSET', tx);
      said.set(worker, new Set(byEndpoint.keys()));
    },
    async read(endpointId) {
      const fields = await callRedis('HGETALL', () => redis.hgetall(keys.circuits(endpointId)));
      return Object.values(fields).flatMap((json) => {
        const p = JSON.parse(json) as Published;
        return p.expiresAt > now() ? p.reports : [];
      });
    },
  };
}
