import type { ServiceError } from '@grpc/grpc-js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  redisCli,
  startRedis,
  startRedisCluster,
  startRedisSentinelSet,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeRoot, startHarness, type Harness } from './harness.js';

/** An hour boundary: the SECOND and HOUR windows both start here, as do MINUTE windows. */
const T0_MS = 1_800_000_000_000;

const RULES = {
  'algo.yaml': `
domain: algo
descriptors:
  - key: multi
    rate_limits:
      - {unit: second, requests_per_unit: 2}
      - {unit: hour, requests_per_unit: 5}
  - key: sliding
    rate_limit: {unit: minute, requests_per_unit: 10, algorithm: sliding_window}
  - key: bucket
    rate_limit: {unit: second, requests_per_unit: 2, burst: 4}
  - key: fixed
    rate_limit: {unit: minute, requests_per_unit: 3}
`,
};

interface Status {
  code: string;
  remaining: number;
  reset: number;
  limit: string;
}

interface Answer {
  overall: string;
  statuses: Status[];
}

interface Descriptor {
  key: string;
  value: string;
  hitsAddend?: number;
  limit?: { requestsPerUnit: number; unit?: string };
}

type Transport = 'json' | 'grpc';

/** Asks over one transport and reads the answer the same way for both. */
async function ask(h: Harness, via: Transport, descriptors: Descriptor[], hitsAddend = 0): Promise<Answer> {
  const toWire = (d: Descriptor) => ({
    entries: [{ key: d.key, value: d.value }],
    ...(d.limit ? { limit: d.limit } : {}),
    ...(d.hitsAddend === undefined
      ? {}
      : { hitsAddend: via === 'json' ? d.hitsAddend : { value: d.hitsAddend } }),
  });
  const request = { domain: 'algo', descriptors: descriptors.map(toWire), hitsAddend };
  let body: Record<string, unknown>;
  if (via === 'json') {
    const res = await h.json(request);
    body = res.body as Record<string, unknown>;
    if (res.status !== 200 && res.status !== 429)
      throw new Error(`HTTP ${res.status}: ${JSON.stringify(body)}`);
    expect(res.status).toBe(body.overallCode === 'OVER_LIMIT' ? 429 : 200);
  } else {
    body = await h.rls.shouldRateLimit(request);
  }
  const statuses = body.statuses as Array<{
    code: string;
    limitRemaining?: number;
    durationUntilReset?: string | { seconds: number | string };
    currentLimit?: { requestsPerUnit: number; unit: string };
  }>;
  return {
    overall: body.overallCode as string,
    statuses: statuses.map((s) => ({
      code: s.code,
      remaining: s.limitRemaining ?? 0,
      reset:
        typeof s.durationUntilReset === 'string'
          ? Number(s.durationUntilReset.replace(/s$/, ''))
          : Number(s.durationUntilReset?.seconds ?? 0),
      limit: s.currentLimit ? `${s.currentLimit.requestsPerUnit}/${s.currentLimit.unit}` : '',
    })),
  };
}

const one = (key: string, value: string, more: Partial<Descriptor> = {}): Descriptor[] => [
  { key, value, ...more },
];

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const BACKENDS = ['memory', 'redis'] as const;
const TRANSPORTS: Transport[] = ['json', 'grpc'];
const MATRIX = BACKENDS.flatMap((backend) => TRANSPORTS.map((via) => ({ backend, via })));

describe.each(MATRIX)('algorithms on $backend over $via', ({ backend, via }) => {
  const clock = { nowMs: T0_MS };
  let h: Harness;
  const prefix = `${backend}-${via}:`;

  beforeAll(async () => {
    const env: Record<string, string> = { BACKEND_TYPE: backend, CACHE_KEY_PREFIX: prefix };
    if (backend === 'redis') env.REDIS_URL = redis.address;
    h = await startHarness(RULES, env, { ...(await createRuntimeRoot(RULES)), now: () => clock.nowMs });
  });
  afterAll(() => h.close());

  it('rate_limits: counts every limit, answers the most restrictive, keys apart when windows start together', async () => {
    clock.nowMs = T0_MS;
    const multi = one('multi', 'x');
    expect(await ask(h, via, multi)).toEqual({
      overall: 'OK',
      statuses: [{ code: 'OK', remaining: 1, reset: 1, limit: '2/SECOND' }],
    });
    expect((await ask(h, via, multi)).statuses[0]).toMatchObject({ remaining: 0, limit: '2/SECOND' });
    expect(await ask(h, via, multi)).toEqual({
      overall: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', remaining: 0, reset: 1, limit: '2/SECOND' }],
    });
    clock.nowMs = T0_MS + 1000;
    // the refused hit still counted against the hour: 4 of 5 used now
    expect((await ask(h, via, multi)).statuses[0]).toMatchObject({ code: 'OK', remaining: 1 });
    expect((await ask(h, via, multi)).statuses[0]).toMatchObject({ code: 'OK', remaining: 0 });
    clock.nowMs = T0_MS + 2000;
    expect(await ask(h, via, multi)).toEqual({
      overall: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', remaining: 0, reset: 3598, limit: '5/HOUR' }],
    });
    if (backend === 'redis') {
      const keys = (await redisCli(redis.port, 'KEYS', `${prefix}algo_multi_*`)).split('\n').sort();
      expect(keys).toEqual([
        `${prefix}algo_multi_x_1800000000`,
        `${prefix}algo_multi_x_1800000000:1`,
        `${prefix}algo_multi_x_1800000001`,
        `${prefix}algo_multi_x_1800000002`,
      ]);
      expect(await redisCli(redis.port, 'GET', `${prefix}algo_multi_x_1800000000:1`)).toBe('6');
    }
  });

  it('sliding_window: weighs the previous window by the part of it still in the last unit', async () => {
    clock.nowMs = T0_MS;
    const sliding = (hits = 1) => one('sliding', 'x', { hitsAddend: hits });
    expect((await ask(h, via, sliding(6))).statuses[0]).toMatchObject({ code: 'OK', remaining: 4 });
    // a quarter into the next minute: floor(6 × 0.75) + 1 = 5 counted (a fixed window would count 1)
    clock.nowMs = T0_MS + 75_000;
    expect((await ask(h, via, sliding())).statuses[0]).toEqual({
      code: 'OK',
      remaining: 5,
      reset: 45,
      limit: '10/MINUTE',
    });
    expect((await ask(h, via, sliding(5))).statuses[0]).toMatchObject({ code: 'OK', remaining: 0 });
    // over: 4 + 7 = 11; one more passes once floor(6 × (1 − f)) ≤ 2, i.e. half-way, 15 s from now
    expect(await ask(h, via, sliding())).toEqual({
      overall: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', remaining: 0, reset: 16, limit: '10/MINUTE' }],
    });
    clock.nowMs = T0_MS + 60_000 + 45_001;
    // floor(6 × 0.24998) + 8 = 9 with this hit
    expect((await ask(h, via, sliding())).statuses[0]).toMatchObject({ code: 'OK', remaining: 1 });
  });

  it('token bucket: bursts up to burst, refills at requests_per_unit, reports remaining and reset', async () => {
    clock.nowMs = T0_MS;
    const bucket = (hits = 1) => one('bucket', 'x', { hitsAddend: hits });
    expect((await ask(h, via, bucket(4))).statuses[0]).toEqual({
      code: 'OK',
      remaining: 0,
      reset: 2,
      limit: '2/SECOND',
    });
    expect(await ask(h, via, bucket())).toEqual({
      overall: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', remaining: 0, reset: 1, limit: '2/SECOND' }],
    });
    // a check without consuming (hits_addend 0) neither fails nor takes a token
    expect((await ask(h, via, bucket(0))).statuses[0]).toMatchObject({ code: 'OK', remaining: 0 });
    clock.nowMs = T0_MS + 500;
    expect((await ask(h, via, bucket())).statuses[0]).toMatchObject({ code: 'OK', remaining: 0, reset: 2 });
    clock.nowMs = T0_MS + 2500;
    expect((await ask(h, via, bucket())).statuses[0]).toMatchObject({ code: 'OK', remaining: 3, reset: 1 });
    if (backend === 'redis') {
      const ttlMs = Number(await redisCli(redis.port, 'PTTL', `${prefix}algo_bucket_x_tb`));
      expect(ttlMs).toBeGreaterThan(0);
      expect(ttlMs).toBeLessThanOrEqual(500);
    }
  });

  it('a limit override replaces a sliding window or token bucket with a fixed window', async () => {
    clock.nowMs = T0_MS + 3_600_000;
    const override = { limit: { requestsPerUnit: 1, unit: 'MINUTE' } };
    const answer = await ask(h, via, [...one('bucket', 'o', override), ...one('sliding', 'o', override)]);
    expect(answer.statuses).toEqual([
      { code: 'OK', remaining: 0, reset: 60, limit: '1/MINUTE' },
      { code: 'OK', remaining: 0, reset: 60, limit: '1/MINUTE' },
    ]);
  });

  it('rejects an override without a unit, naming the descriptor, and keeps serving', async () => {
    const bad = [...one('fixed', 'a'), ...one('multi', 'y', { limit: { requestsPerUnit: 1 } })];
    const message =
      'descriptors[1].limit.unit: a limit override needs a unit (one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR); descriptor (multi=y)';
    if (via === 'json') {
      const res = await h.json({
        domain: 'algo',
        descriptors: bad.map((d) => ({
          entries: [{ key: d.key, value: d.value }],
          ...(d.limit ? { limit: d.limit } : {}),
        })),
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(message);
    } else {
      const err = (await h.rls
        .shouldRateLimit({
          domain: 'algo',
          descriptors: bad.map((d) => ({
            entries: [{ key: d.key, value: d.value }],
            ...(d.limit ? { limit: { ...d.limit, unit: 'UNKNOWN' } } : {}),
          })),
        })
        .catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect(err.details).toBe(message);
    }
    expect((await ask(h, via, one('fixed', 'still-up'))).overall).toBe('OK');
  });
});

describe.each(BACKENDS)('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT on %s', (backend) => {
  it('leaves the other counters of a refused request alone, over gRPC and /json', async () => {
    const env: Record<string, string> = {
      BACKEND_TYPE: backend,
      CACHE_KEY_PREFIX: `stop-${backend}:`,
      STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true',
    };
    if (backend === 'redis') env.REDIS_URL = redis.address;
    const clock = { nowMs: T0_MS };
    const h = await startHarness(RULES, env, { ...(await createRuntimeRoot(RULES)), now: () => clock.nowMs });
    try {
      for (let i = 0; i < 3; i++) await ask(h, 'json', one('fixed', 'full'));
      const refused = await ask(h, 'grpc', [
        ...one('fixed', 'full'),
        ...one('fixed', 'spare'),
        ...one('multi', 'spare'),
        ...one('bucket', 'spare'),
        ...one('sliding', 'spare'),
      ]);
      expect(refused.overall).toBe('OVER_LIMIT');
      expect(refused.statuses.map((s) => [s.code, s.remaining])).toEqual([
        ['OVER_LIMIT', 0],
        ['OK', 3],
        ['OK', 2],
        ['OK', 4],
        ['OK', 10],
      ]);
      const next = await ask(h, 'json', [
        ...one('fixed', 'spare'),
        ...one('multi', 'spare'),
        ...one('bucket', 'spare'),
        ...one('sliding', 'spare'),
      ]);
      expect(next.statuses.map((s) => [s.code, s.remaining])).toEqual([
        ['OK', 2],
        ['OK', 1],
        ['OK', 3],
        ['OK', 9],
      ]);
    } finally {
      await h.close();
    }
  });
});

describe('algorithms on the other Redis topologies', () => {
  const mixed = (value: string): Descriptor[] => [
    ...one('multi', value),
    ...one('sliding', value),
    ...one('bucket', value),
  ];
  const codes = async (h: Harness, via: Transport, value: string) =>
    (await ask(h, via, mixed(value))).statuses.map((s) => [s.code, s.remaining, s.limit]);

  it('cluster: keys of one request on different slots, the bucket script resent after SCRIPT FLUSH', async () => {
    const cluster = await startRedisCluster();
    const clock = { nowMs: T0_MS };
    const h = await startHarness(
      RULES,
      { BACKEND_TYPE: 'redis', KVSTORE_TYPE: 'cluster', KVSTORE_URL: cluster.url },
      { ...(await createRuntimeRoot(RULES)), now: () => clock.nowMs },
    );
    try {
      const values = 'alpha bravo charlie delta echo foxtrot'.split(' ');
      for (const v of values) {
        expect(await codes(h, 'grpc', v)).toEqual([
          ['OK', 1, '2/SECOND'],
          ['OK', 9, '10/MINUTE'],
          ['OK', 3, '2/SECOND'],
        ]);
      }
      await Promise.all(cluster.nodes.map((n) => redisCli(n.port, 'SCRIPT', 'FLUSH')));
      for (const v of values) {
        expect(await codes(h, 'json', v)).toEqual([
          ['OK', 0, '2/SECOND'],
          ['OK', 8, '10/MINUTE'],
          ['OK', 2, '2/SECOND'],
        ]);
      }
    } finally {
      await h.close();
      await cluster.stop();
    }
  });

  it('sentinel: the same ops through the master the sentinels name', async () => {
    const set = await startRedisSentinelSet();
    const clock = { nowMs: T0_MS };
    const h = await startHarness(
      RULES,
      { BACKEND_TYPE: 'redis', KVSTORE_TYPE: 'sentinel', KVSTORE_URL: set.url },
      { ...(await createRuntimeRoot(RULES)), now: () => clock.nowMs },
    );
    try {
      expect(await codes(h, 'grpc', 'x')).toEqual([
        ['OK', 1, '2/SECOND'],
        ['OK', 9, '10/MINUTE'],
        ['OK', 3, '2/SECOND'],
      ]);
      expect(await redisCli(set.master.port, 'GET', 'algo_sliding_x_1800000000')).toBe('1');
    } finally {
      await h.close();
      await set.stop();
    }
  });

  it('KVSTORE_PERSECOND with a pipeline window: per-second buckets and windows go to the second Redis', async () => {
    const main = await startRedis();
    const perSecond = await startRedis();
    const clock = { nowMs: T0_MS };
    const h = await startHarness(
      RULES,
      {
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: main.address,
        KVSTORE_PERSECOND: 'true',
        KVSTORE_PERSECOND_URL: perSecond.address,
        KVSTORE_PIPELINE_WINDOW: '2ms',
        KVSTORE_PERSECOND_PIPELINE_WINDOW: '2ms',
      },
      { ...(await createRuntimeRoot(RULES)), now: () => clock.nowMs },
    );
    try {
      // six at once, one flush: the bucket admits exactly its burst of four
      const answers = await Promise.all(Array.from({ length: 6 }, () => ask(h, 'grpc', one('bucket', 'p'))));
      expect(answers.filter((a) => a.overall === 'OK')).toHaveLength(4);
      await ask(h, 'json', mixed('q'));
      expect((await redisCli(main.port, 'KEYS', '*')).split('\n').sort()).toEqual([
        'algo_multi_q_1800000000:1',
        'algo_sliding_q_1800000000',
      ]);
      expect((await redisCli(perSecond.port, 'KEYS', '*')).split('\n').sort()).toEqual([
        'algo_bucket_p_tb',
        'algo_bucket_q_tb',
        'algo_multi_q_1800000000',
      ]);
    } finally {
      await h.close();
      await Promise.all([main.stop(), perSecond.stop()]);
    }
  });
});
