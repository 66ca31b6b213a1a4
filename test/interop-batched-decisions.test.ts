import { createRateLimitClient, type RateLimitClient } from '@portcullis/ratelimit-client';
import {
  quietLog,
  startMemcached,
  startRateLimitProcess,
  startRedis,
  startUpstreamRateLimit,
  type MemcachedServer,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The client merges the requests of one event-loop turn into one ShouldRateLimit call, the same descriptor
 * repeated once per request. That gives each request the answer it would have had alone only if the service
 * counts a key repeated in one request once per descriptor, in order: pinned here against our service on
 * each backend and against upstream's. Memcached does not (upstream reads every key of a request, then
 * increments them in the background, and ours keeps its arithmetic): a merged call lets the turn's
 * repeats all pass, as concurrent calls already race there. The client's README says to turn merging off
 * in front of a memcached backend; pinned too, so a change in either service shows.
 */

const LIMIT = 3;
const CONFIG = `
domain: batched
descriptors:
  - key: user
    rate_limit: { unit: hour, requests_per_unit: ${LIMIT} }
`;

interface Service {
  address: string;
  stop(): Promise<void>;
}

describe('requests merged into one call, against real services', () => {
  let redis: RedisServer;
  let memcached: MemcachedServer;
  const services = new Map<string, Service>();

  beforeAll(async () => {
    [redis, memcached] = await Promise.all([startRedis(), startMemcached()]);
    const files = { 'batched.yaml': CONFIG };
    const ours = async (env: Record<string, string>): Promise<Service> => {
      const p = await startRateLimitProcess(files, env, 60_000);
      return { address: `127.0.0.1:${p.ports.grpc}`, stop: p.stop };
    };
    const upstream = async (env: Record<string, string>): Promise<Service> => {
      const p = await startUpstreamRateLimit({ env, files });
      return { address: p.grpcAddress, stop: () => p.stop() };
    };
    const memcache = { BACKEND_TYPE: 'memcache', MEMCACHE_HOST_PORT: memcached.address };
    const started = await Promise.all([
      ours({ BACKEND_TYPE: 'memory' }).then((s) => ['ours, memory', s] as const),
      ours({ BACKEND_TYPE: 'redis', REDIS_URL: redis.address }).then((s) => ['ours, Redis', s] as const),
      ours(memcache).then((s) => ['ours, memcached', s] as const),
      upstream({ REDIS_URL: redis.address, CACHE_KEY_PREFIX: 'upstream_' }).then(
        (s) => ['upstream, Redis', s] as const,
      ),
      upstream(memcache).then((s) => ['upstream, memcached', s] as const),
    ]);
    for (const [name, s] of started) services.set(name, s);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([...services.values()].map((s) => s.stop()));
    await Promise.all([redis.stop(), memcached.stop()]);
  });

  const ask = async (name: string): Promise<Array<boolean | 'failed'>> => {
    const service = services.get(name);
    if (!service) throw new Error(`${name} did not start`);
    const client: RateLimitClient = createRateLimitClient({
      target: service.address,
      timeoutMs: 5000,
      failureMode: 'deny',
      log: quietLog,
    });
    try {
      const user = { entries: [{ key: 'user', value: name.replace(/\W+/g, '-') }] };
      const answers = await Promise.all(
        Array.from({ length: LIMIT + 3 }, () => client.decide({ domain: 'batched', descriptors: [user] })),
      );
      return answers.map((d) => (d.failedOpen ? 'failed' : d.allowed));
    } finally {
      client.close();
    }
  };

  it.each(['ours, memory', 'ours, Redis', 'upstream, Redis'])(
    '%s: the first three requests of a turn pass and the rest are over the limit',
    async (name) => {
      expect(await ask(name)).toEqual([true, true, true, false, false, false]);
    },
  );

  it.each(['ours, memcached', 'upstream, memcached'])(
    '%s: every request of the turn passes, the key read once for the whole call',
    async (name) => {
      expect(await ask(name)).toEqual(Array<boolean>(LIMIT + 3).fill(true));
    },
  );
});
