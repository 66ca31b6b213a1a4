import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { fromStruct } from '@portcullis/protos';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

/**
 * Upstream's newer matching features over real sockets: wildcard values, share_threshold,
 * value_to_metric, quota_mode (per rule and QUOTA_MODE), metadata in the dynamic metadata, and the bound on
 * per-value statistics. Every case runs over gRPC and over /json, against the memory backend and Redis.
 */

const CONFIG = `domain: parity
descriptors:
  - key: path
    value: /api/*/action
    rate_limit: {unit: hour, requests_per_unit: 2}
  - key: path
    value: /api/v1/action
    rate_limit: {unit: hour, requests_per_unit: 100}
  - key: path
    value: /api/*
    rate_limit: {unit: hour, requests_per_unit: 3}
  - key: path
    rate_limit: {unit: hour, requests_per_unit: 50}
  - key: files
    value: files/*
    share_threshold: true
    rate_limit: {unit: hour, requests_per_unit: 2}
  - key: tenant
    value_to_metric: true
    descriptors:
      - key: route
        value: r*
        value_to_metric: true
        rate_limit: {unit: hour, requests_per_unit: 10}
  - key: quota_a
    quota_mode: true
    rate_limit: {unit: hour, requests_per_unit: 1}
    metadata: {service: a, tier: {name: gold}}
  - key: quota_b
    quota_mode: true
    rate_limit: {unit: hour, requests_per_unit: 2}
    metadata: {service: b, weight: 2, tier: {name: silver, rank: 2}}
  - key: hard
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: user
    detailed_metric: true
    rate_limit: {unit: hour, requests_per_unit: 1000}
`;

type Transport = 'grpc' | 'json';
interface Descriptor {
  entries: Array<{ key: string; value: string }>;
  hitsAddend?: number;
  limit?: { requestsPerUnit: number; unit: string };
}
interface Answer {
  overallCode: string;
  statuses: Array<{ code: string; requestsPerUnit: number | undefined; limitRemaining: number }>;
  dynamicMetadata: unknown;
  /** The `RateLimit-Limit` header the answer asks to add, if any. */
  limitHeader: string | undefined;
}

const d = (pairs: Record<string, string>, more: Omit<Descriptor, 'entries'> = {}): Descriptor => ({
  entries: Object.entries(pairs).map(([key, value]) => ({ key, value })),
  ...more,
});

/** Asks over one transport and brings the answer to one shape (gRPC's Struct as the plain map). */
async function ask(
  h: Harness,
  transport: Transport,
  request: { descriptors: Descriptor[]; hitsAddend?: number },
): Promise<Answer> {
  interface Raw {
    overallCode: string;
    statuses: Array<{ code: string; currentLimit?: { requestsPerUnit?: number }; limitRemaining?: number }>;
    dynamicMetadata?: unknown;
    responseHeadersToAdd?: Array<{ key: string; value: string }>;
  }
  let raw: Raw;
  if (transport === 'json') {
    raw = (await h.json({ domain: 'parity', ...request })).body as Raw;
  } else {
    const descriptors = request.descriptors.map((x) => ({
      ...x,
      ...(x.hitsAddend === undefined ? {} : { hitsAddend: { value: x.hitsAddend } }),
    }));
    raw = (await h.rls.shouldRateLimit({ domain: 'parity', ...request, descriptors })) as unknown as Raw;
    if (raw.dynamicMetadata) raw.dynamicMetadata = fromStruct(raw.dynamicMetadata);
  }
  return {
    overallCode: raw.overallCode,
    statuses: raw.statuses.map((s) => ({
      code: s.code,
      requestsPerUnit: s.currentLimit ? (s.currentLimit.requestsPerUnit ?? 0) : undefined,
      limitRemaining: s.limitRemaining ?? 0,
    })),
    dynamicMetadata: raw.dynamicMetadata,
    limitHeader: raw.responseHeadersToAdd?.find((x) => x.key === 'RateLimit-Limit')?.value,
  };
}

const codesOf = (a: Answer): string[] => [a.overallCode, ...a.statuses.map((s) => s.code)];

async function statsOf(h: Harness): Promise<Map<string, number>> {
  const text = (await h.get('/stats', 'debug')).text;
  return new Map(
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const at = l.lastIndexOf(': ');
        return [l.slice(0, at), Number(l.slice(at + 2))] as [string, number];
      }),
  );
}

describe.each([
  ['memory', {}],
  ['redis', { BACKEND_TYPE: 'redis' }],
] as const)('upstream parity: matching, quota and metadata, %s backend', (backend, env) => {
  let h: Harness;
  let global: Harness;
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    redis = backend === 'redis' ? await startRedis() : undefined;
    const store: Record<string, string> = redis
      ? { KVSTORE_URL: redis.address, CACHE_KEY_PREFIX: 'test:' }
      : {};
    h = await startHarness(
      { 'parity.yaml': CONFIG },
      { ...env, ...store, RESPONSE_DYNAMIC_METADATA: 'true', LIMIT_RESPONSE_HEADERS_ENABLED: 'true' },
    );
    global = await startHarness(
      { 'parity.yaml': CONFIG },
      { ...env, ...store, QUOTA_MODE: 'true', STATS_MAX_DYNAMIC_KEYS: '2' },
    );
  });
  afterAll(async () => {
    await h.close();
    await global.close();
    await redis?.stop();
  });

  describe.each(['grpc', 'json'] as const)('over %s', (transport) => {
    /** A value no other case uses, so each case starts from empty counters. */
    const fresh = (): string => randomUUID().slice(0, 8);

    it('wildcards: exact key+value first, then the first matching wildcard in config order, then key-only', async () => {
      const limitOf = async (path: string) =>
        (await ask(h, transport, { descriptors: [d({ path })] })).statuses[0]?.requestsPerUnit;
      expect(await limitOf('/api/v1/action')).toBe(100);
      expect(await limitOf(`/api/${fresh()}/action`)).toBe(2);
      expect(await limitOf('/api//action')).toBe(2);
      expect(await limitOf(`/api/${fresh()}/other`)).toBe(3);
      expect(await limitOf(`/elsewhere/${fresh()}`)).toBe(50);
    });

    it('wildcards: each matching value has its own counter, and statistics go under the pattern', async () => {
      const before =
        (await statsOf(h)).get('ratelimit.service.rate_limit.parity.path_/api/*/action.total_hits') ?? 0;
      const [one, two] = [`/api/${fresh()}/action`, `/api/${fresh()}/action`];
      const codes = [];
      for (const path of [one, one, one, two])
        codes.push((await ask(h, transport, { descriptors: [d({ path })] })).overallCode);
      expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT', 'OK']);
      const stats = await statsOf(h);
      expect(stats.get('ratelimit.service.rate_limit.parity.path_/api/*/action.total_hits')).toBe(before + 4);
      expect([...stats.keys()].some((k) => k.includes(one))).toBe(false);
    });

    it('share_threshold: every value matching the pattern counts against one counter', async () => {
      // the counter is shared by all values and survives across cases: read it before, count from there
      const first = await ask(h, transport, {
        descriptors: [d({ files: `files/${fresh()}` }, { hitsAddend: 0 })],
      });
      const used = 2 - (first.statuses[0]?.limitRemaining ?? 0);
      const codes = [];
      for (let i = used; i < 3; i++)
        codes.push(
          (await ask(h, transport, { descriptors: [d({ files: `files/${fresh()}` })] })).overallCode,
        );
      expect(codes.at(-1)).toBe('OVER_LIMIT');
      expect(codes.slice(0, -1).every((c) => c === 'OK')).toBe(true);
      const stats = await statsOf(h);
      expect(stats.get('ratelimit.service.rate_limit.parity.files_files/*.over_limit')).toBeGreaterThan(0);
      expect(
        [...stats.keys()]
          .filter((k) => k.startsWith('ratelimit.service.rate_limit.parity.files_'))
          .every((k) => k.includes('files_files/*.')),
      ).toBe(true);
    });

    it('value_to_metric: statistics name the request values of key-only and wildcard levels', async () => {
      const [tenant, route] = [fresh(), `r${fresh()}`];
      const r = await ask(h, transport, { descriptors: [d({ tenant, route })] });
      expect(r.statuses[0]?.requestsPerUnit).toBe(10);
      await ask(h, transport, { descriptors: [d({ tenant: '', route })] });
      const stats = await statsOf(h);
      expect(
        stats.get(`ratelimit.service.rate_limit.parity.tenant_${tenant}.route_${route}.total_hits`),
      ).toBe(1);
      // an empty runtime value adds nothing: the level keeps its key
      expect(stats.get(`ratelimit.service.rate_limit.parity.tenant.route_${route}.total_hits`)).toBe(1);
    });

    it('quota_mode: over limit only when a hard limit is, or when every quota descriptor is', async () => {
      const [a, b] = [fresh(), fresh()];
      const both = { descriptors: [d({ quota_a: a }), d({ quota_b: b })] };
      expect(codesOf(await ask(h, transport, both))).toEqual(['OK', 'OK', 'OK']);
      // quota_a is spent, quota_b is not: the statuses say so, the overall answer stays OK
      expect(codesOf(await ask(h, transport, both))).toEqual(['OK', 'OVER_LIMIT', 'OK']);
      const spent = await ask(h, transport, both);
      expect(codesOf(spent)).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OVER_LIMIT']);
      // headers: an over-limit quota status is not picked just for being over, so the first one stays
      expect(spent.limitHeader).toBe('1');

      const hard = fresh();
      const mixed = { descriptors: [d({ hard }), d({ quota_b: fresh() })] };
      expect(codesOf(await ask(h, transport, mixed))).toEqual(['OK', 'OK', 'OK']);
      expect(codesOf(await ask(h, transport, mixed))).toEqual(['OVER_LIMIT', 'OVER_LIMIT', 'OK']);
    });

    it('QUOTA_MODE=true: every descriptor is a quota one, and an unmatched descriptor counts as passing', async () => {
      const hard = fresh();
      const alone = { descriptors: [d({ hard })] };
      const withUnmatched = { descriptors: [d({ hard }), d({ nobody: 'x' })] };
      expect(codesOf(await ask(global, transport, alone))).toEqual(['OK', 'OK']);
      expect(codesOf(await ask(global, transport, withUnmatched))).toEqual(['OK', 'OVER_LIMIT', 'OK']);
      expect(codesOf(await ask(global, transport, alone))).toEqual(['OVER_LIMIT', 'OVER_LIMIT']);
    });

    it('RESPONSE_DYNAMIC_METADATA: the request echoed and the merged metadata of the limits not over', async () => {
      const [a, b] = [fresh(), fresh()];
      const request = { descriptors: [d({ quota_a: a }), d({ quota_b: b }, { hitsAddend: 1 })] };
      const first = await ask(h, transport, request);
      expect(first.dynamicMetadata).toEqual({
        domain: 'parity',
        descriptors: [{ entries: [`quota_a=${a}`] }, { entries: [`quota_b=${b}`], hitsAddend: 1 }],
        quotaModeEnabled: true,
        metadata: { service: 'a', weight: 2, tier: { name: 'gold', rank: 2 } },
      });
      const second = await ask(h, transport, request);
      expect(second.statuses.map((s) => s.code)).toEqual(['OVER_LIMIT', 'OK']);
      expect(second.dynamicMetadata).toMatchObject({ quotaModeViolations: [0], quotaModeEnabled: true });
      expect((second.dynamicMetadata as { metadata: unknown }).metadata).toEqual({
        service: 'b',
        weight: 2,
        tier: { name: 'silver', rank: 2 },
      });
      const third = await ask(h, transport, request);
      expect(third.dynamicMetadata).not.toHaveProperty('metadata');

      const override = await ask(h, transport, {
        hitsAddend: 3,
        descriptors: [d({ hard: fresh() }, { limit: { requestsPerUnit: 10, unit: 'MINUTE' } })],
      });
      expect(override.dynamicMetadata).toMatchObject({
        hitsAddend: 3,
        descriptors: [{ limit: 'requests_per_unit:10 unit:MINUTE' }],
      });
    });

    it('STATS_MAX_DYNAMIC_KEYS: per-value statistics stop at the cap, further hits go to stats_overflow', async () => {
      const perUser = (stats: Map<string, number>): number =>
        [...stats.keys()].filter((k) =>
          /^ratelimit\.service\.rate_limit\.parity\.user_.*\.total_hits$/.test(k),
        ).length;
      const overflow = (stats: Map<string, number>): number =>
        stats.get('ratelimit.service.rate_limit.parity.stats_overflow') ?? 0;
      const before = await statsOf(global);
      for (let i = 0; i < 5; i++) await ask(global, transport, { descriptors: [d({ user: fresh() })] });
      const after = await statsOf(global);
      expect(perUser(after)).toBe(2);
      expect(overflow(after) - overflow(before)).toBe(5 - (2 - perUser(before)));
      const metrics = (await global.get('/metrics', 'debug')).text;
      expect(metrics).toMatch(/^ratelimit_service_rate_limit_stats_overflow\{domain="parity"\} \d+$/m);
    });
  });

  it('/rlconfig prints quota_mode for each rule', async () => {
    const text = (await h.get('/rlconfig', 'debug')).text;
    expect(text).toContain(
      'parity.quota_a: unit=HOUR requests_per_unit=1, shadow_mode: false, quota_mode: true\n',
    );
    expect(text).toContain(
      'parity.hard: unit=HOUR requests_per_unit=1, shadow_mode: false, quota_mode: false\n',
    );
    expect(text).toContain(
      'parity.path_/api/*/action: unit=HOUR requests_per_unit=2, shadow_mode: false, quota_mode: false\n',
    );
  });

  it.runIf(backend === 'redis')('share_threshold: Redis holds one counter under the pattern', async () => {
    const client = new Redis({ host: '127.0.0.1', port: redis?.port ?? 0 });
    try {
      await ask(h, 'grpc', { descriptors: [d({ files: `files/${randomUUID()}` }, { hitsAddend: 0 })] });
      const keys = await client.keys('test:parity_files_*');
      const window = Math.floor(Date.now() / 1000 / 3600) * 3600;
      expect(keys).toEqual([`test:parity_files_files/*_${window}`]);
    } finally {
      client.disconnect();
    }
  });
});
