import { parseRateLimitYaml } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './backends/memory.js';
import type { CounterStore } from './backends/types.js';
import { buildRuleSet } from './config/rule-set.js';
import { BackendError, NoConfigError, RequestError } from './errors.js';
import { Limiter } from './limiter/limiter.js';
import { RateLimitService, UINT32_MAX, type ServiceOptions } from './service.js';
import { Stats } from './stats/stats.js';
import type { RateLimitRequest, RequestDescriptor } from './types.js';

const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 30); // 30 s into a minute

interface Setup {
  service: RateLimitService;
  stats: Stats;
  ask: (...descriptors: RequestDescriptor[]) => ReturnType<RateLimitService['shouldRateLimit']>;
}

type SetupOptions = Partial<
  Pick<ServiceOptions, 'shadowMode' | 'quotaMode' | 'dynamicMetadata' | 'responseHeaders'>
> & {
  store?: CounterStore;
};

function createService(stats: Stats, opts: SetupOptions = {}): RateLimitService {
  return new RateLimitService({
    limiter: new Limiter({
      store: opts.store ?? createMemoryStore({ now: () => NOW_MS }),
      now: () => NOW_MS,
      nearLimitRatio: 0.8,
      cacheKeyPrefix: '',
      expirationJitterMaxSeconds: 0,
      random: () => 0,
    }),
    stats,
    shadowMode: opts.shadowMode ?? false,
    quotaMode: opts.quotaMode ?? false,
    dynamicMetadata: opts.dynamicMetadata ?? false,
    responseHeaders: opts.responseHeaders ?? { enabled: false, limit: 'L', remaining: 'R', reset: 'T' },
  });
}

function setup(yaml: string, opts: SetupOptions = {}): Setup {
  const stats = new Stats();
  const service = createService(stats, opts);
  service.setRules(buildRuleSet([parseRateLimitYaml('test.yaml', yaml)], { mergeDomains: false, stats }));
  const ask = (...descriptors: RequestDescriptor[]) =>
    service.shouldRateLimit({ domain: 'test', descriptors, hitsAddend: 0 });
  return { service, stats, ask };
}

/** A memory store that records the keys it was asked to increment. */
function spyStore(): { spy: CounterStore; seen: string[] } {
  const store = createMemoryStore({ now: () => NOW_MS });
  const seen: string[] = [];
  const spy: CounterStore = {
    ...store,
    run: (ops) => (seen.push(...ops.map((o) => o.key)), store.run(ops)),
  };
  return { spy, seen };
}

const d = (...pairs: Array<[string, string]>): RequestDescriptor => ({
  entries: pairs.map(([key, value]) => ({ key, value })),
});

async function codes(s: Setup, times: number, ...descriptors: RequestDescriptor[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < times; i++) out.push((await s.ask(...descriptors)).overallCode);
  return out;
}

describe('matching and evaluation rules', () => {
  it('1: keys and values are case-sensitive', async () => {
    const s = setup(
      'domain: test\ndescriptors:\n  - key: k\n    value: V\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
    );
    expect((await s.ask(d(['k', 'V']))).statuses[0]?.currentLimit).toBeDefined();
    expect((await s.ask(d(['k', 'v']))).statuses[0]?.currentLimit).toBeUndefined();
    expect((await s.ask(d(['K', 'V']))).statuses[0]?.currentLimit).toBeUndefined();
  });

  it('2: a request descriptor matches only a rule at its own depth', async () => {
    const s = setup(`domain: test
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: 1}
    descriptors:
      - key: b
        rate_limit: {unit: minute, requests_per_unit: 2}
`);
    expect((await s.ask(d(['a', 'x']))).statuses[0]?.currentLimit?.requestsPerUnit).toBe(1);
    expect((await s.ask(d(['a', 'x'], ['b', 'y']))).statuses[0]?.currentLimit?.requestsPerUnit).toBe(2);
    expect((await s.ask(d(['a', 'x'], ['b', 'y'], ['c', 'z']))).statuses[0]).toEqual({
      code: 'OK',
      currentLimit: undefined,
      limitRemaining: 0,
      durationUntilResetSec: undefined,
    });
    expect((await s.ask(d(['b', 'y']))).statuses[0]?.currentLimit).toBeUndefined();
  });

  it('3: key+value beats key alone, and a key-only rule counts each value separately', async () => {
    const s = setup(`domain: test
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: user
    value: vip
    rate_limit: {unit: minute, requests_per_unit: 100}
`);
    expect((await s.ask(d(['user', 'vip']))).statuses[0]?.currentLimit?.requestsPerUnit).toBe(100);
    expect(await codes(s, 3, d(['user', 'alice']))).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    expect(await codes(s, 1, d(['user', 'bob']))).toEqual(['OK']);
  });

  it('3: an empty request value matches only the key-only rule', async () => {
    const s = setup(`domain: test
descriptors:
  - key: k
    rate_limit: {unit: minute, requests_per_unit: 7}
`);
    expect((await s.ask(d(['k', '']))).statuses[0]?.currentLimit?.requestsPerUnit).toBe(7);
  });

  it('4: a rule without limit and children whitelists', async () => {
    const s = setup(`domain: test
descriptors:
  - key: k
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: k
    value: trusted
`);
    expect(await codes(s, 3, d(['k', 'trusted']))).toEqual(['OK', 'OK', 'OK']);
    expect(await codes(s, 1, d(['k', 'other']))).toEqual(['OVER_LIMIT']);
  });

  it('5: a rule without limit but with children is only a placeholder', async () => {
    const s = setup(`domain: test
descriptors:
  - key: a
    descriptors:
      - key: b
        rate_limit: {unit: second, requests_per_unit: 1}
`);
    expect((await s.ask(d(['a', '1']))).statuses[0]?.currentLimit).toBeUndefined();
    expect(await codes(s, 2, d(['a', '1'], ['b', '2']))).toEqual(['OK', 'OVER_LIMIT']);
  });

  it('6: several descriptors are each evaluated, in order, and any over limit makes the whole over limit', async () => {
    const s = setup(`domain: test
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: b
    rate_limit: {unit: minute, requests_per_unit: 5}
`);
    await s.ask(d(['a', '1']));
    const r = await s.ask(d(['b', '1']), d(['a', '1']), d(['zzz', '1']));
    expect(r.overallCode).toBe('OVER_LIMIT');
    expect(r.statuses.map((x) => x.code)).toEqual(['OK', 'OVER_LIMIT', 'OK']);
    expect(r.statuses[0]?.limitRemaining).toBe(4);
  });

  it('7: unlimited never touches the counters and reports the largest uint32 remaining', async () => {
    const { spy, seen } = spyStore();
    const s = setup(
      `domain: test
descriptors:
  - key: k
    rate_limit: {unlimited: true}
`,
      { store: spy },
    );
    const r = await s.ask(d(['k', 'v']));
    expect(r.statuses[0]).toEqual({
      code: 'OK',
      currentLimit: undefined,
      limitRemaining: UINT32_MAX,
      durationUntilResetSec: undefined,
    });
    expect(seen).toEqual([]);
    expect(s.stats.lines().filter((l) => l.includes('rate_limit.test.k.') && !l.endsWith(': 0'))).toEqual([]);
  });

  it('8: a replacing rule takes the place of the named one, whose counter is left alone', async () => {
    const { spy, seen } = spyStore();
    const s = setup(
      `domain: test
descriptors:
  - key: user
    rate_limit:
      name: per-user
      unit: minute
      requests_per_unit: 1
  - key: plan
    value: gold
    rate_limit:
      unit: minute
      requests_per_unit: 10
      replaces:
        - name: per-user
`,
      { store: spy },
    );
    const r = await s.ask(d(['user', 'u1']), d(['plan', 'gold']));
    expect(r.statuses.map((x) => [x.code, x.currentLimit?.requestsPerUnit])).toEqual([
      ['OK', undefined],
      ['OK', 10],
    ]);
    expect(seen).toEqual(['test_plan_gold_1795348800']);
    expect(await codes(s, 2, d(['user', 'u1']))).toEqual(['OK', 'OVER_LIMIT']);
  });

  it('9: rule shadow mode answers OK and counts the overridden over-limit hits', async () => {
    const s = setup(`domain: test
descriptors:
  - key: k
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
`);
    const results = [await s.ask(d(['k', 'v'])), await s.ask(d(['k', 'v'])), await s.ask(d(['k', 'v']))];
    expect(results.map((r) => [r.overallCode, r.statuses[0]?.code, r.statuses[0]?.limitRemaining])).toEqual([
      ['OK', 'OK', 0],
      ['OK', 'OK', 0],
      ['OK', 'OK', 0],
    ]);
    expect(s.stats.lines()).toContain('ratelimit.service.rate_limit.test.k.shadow_mode: 2');
    expect(s.stats.lines()).toContain('ratelimit.service.rate_limit.test.k.over_limit: 2');
  });

  it('10: global shadow mode makes the overall answer OK, keeps the statuses and counts it', async () => {
    const s = setup(
      'domain: test\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 0}\n',
      {
        shadowMode: true,
      },
    );
    const r = await s.ask(d(['k', 'v']));
    expect([r.overallCode, r.statuses[0]?.code]).toEqual(['OK', 'OVER_LIMIT']);
    expect(s.stats.lines()).toContain('ratelimit.service.global_shadow_mode: 1');
  });

  it('11: detailed_metric keeps statistics per value; without it they roll up per rule', async () => {
    const s = setup(`domain: test
descriptors:
  - key: a
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: b
    rate_limit: {unit: minute, requests_per_unit: 5}
`);
    await s.ask(d(['a', 'x']), d(['a', 'y']), d(['b', 'x']), d(['b', 'y']));
    const hits = s.stats.lines().filter((l) => l.endsWith('total_hits: 1') || l.endsWith('total_hits: 2'));
    expect(hits).toEqual([
      'ratelimit.service.rate_limit.test.a_x.total_hits: 1',
      'ratelimit.service.rate_limit.test.a_y.total_hits: 1',
      'ratelimit.service.rate_limit.test.b.total_hits: 2',
    ]);
  });
});

describe('requests', () => {
  const yaml =
    'domain: test\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 10}\n';

  it('rejects an empty domain and an empty descriptor list as service errors', async () => {
    const s = setup(yaml);
    await expect(
      s.service.shouldRateLimit({ domain: '', descriptors: [d(['k', 'v'])], hitsAddend: 0 }),
    ).rejects.toThrow(new RequestError('rate limit domain must not be empty'));
    await expect(s.ask()).rejects.toThrow(new RequestError('rate limit descriptor list must not be empty'));
    expect(s.stats.lines()).toContain('ratelimit.service.call.should_rate_limit.service_error: 2');
  });

  it('answers OK with no limit for an unknown domain and counts it', async () => {
    const s = setup(yaml);
    const r = await s.service.shouldRateLimit({
      domain: 'nope',
      descriptors: [d(['k', 'v'])],
      hitsAddend: 0,
    });
    expect(r).toEqual({
      overallCode: 'OK',
      statuses: [
        { code: 'OK', currentLimit: undefined, limitRemaining: 0, durationUntilResetSec: undefined },
      ],
      responseHeadersToAdd: [],
    });
    expect(s.stats.lines()).toContain('ratelimit.service.rate_limit.nope.domain_not_found: 1');
  });

  it('fails before any configuration loaded', async () => {
    const s = setup(yaml);
    const fresh = new RateLimitService({ ...(s.service as unknown as { o: ServiceOptions }).o });
    await expect(
      fresh.shouldRateLimit({ domain: 'test', descriptors: [d(['k', 'v'])], hitsAddend: 0 }),
    ).rejects.toThrow(NoConfigError);
  });

  it('adds hits_addend, per request or per descriptor (0 checks without consuming)', async () => {
    const s = setup(yaml);
    const req = (descriptors: RequestDescriptor[], hitsAddend: number): RateLimitRequest => ({
      domain: 'test',
      descriptors,
      hitsAddend,
    });
    expect((await s.service.shouldRateLimit(req([d(['k', 'v'])], 4))).statuses[0]?.limitRemaining).toBe(6);
    expect(
      (await s.service.shouldRateLimit(req([{ ...d(['k', 'v']), hitsAddend: 0 }], 4))).statuses[0]
        ?.limitRemaining,
    ).toBe(6);
    expect(
      (await s.service.shouldRateLimit(req([{ ...d(['k', 'v']), hitsAddend: 5 }], 4))).statuses[0]
        ?.limitRemaining,
    ).toBe(1);
    const over = await s.service.shouldRateLimit(req([{ ...d(['k', 'v']), hitsAddend: 2 }], 0));
    expect([over.overallCode, over.statuses[0]?.limitRemaining]).toEqual(['OVER_LIMIT', 0]);
  });

  it('uses a request-side limit override instead of the rule, sharing the counter key', async () => {
    const s = setup(yaml);
    const r = await s.ask({ ...d(['k', 'v']), limit: { requestsPerUnit: 1, unit: 'MINUTE' } });
    expect(r.statuses[0]?.currentLimit).toEqual({ name: undefined, requestsPerUnit: 1, unit: 'MINUTE' });
    expect((await s.ask(d(['k', 'v']))).statuses[0]?.limitRemaining).toBe(8);
    await expect(s.ask({ ...d(['k', 'v']), limit: { requestsPerUnit: 1, unit: undefined } })).rejects.toThrow(
      new RequestError(
        'descriptors[0].limit.unit: a limit override needs a unit (one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR); descriptor (k=v)',
      ),
    );
  });

  it('reports the time left in the window', async () => {
    const s = setup(yaml);
    expect((await s.ask(d(['k', 'v']))).statuses[0]?.durationUntilResetSec).toBe(30);
  });

  it('adds RateLimit headers from the most restrictive status', async () => {
    const s = setup(
      `domain: test
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: b
    rate_limit: {unit: hour, requests_per_unit: 3}
`,
      { responseHeaders: { enabled: true, limit: 'X-Limit', remaining: 'X-Remaining', reset: 'X-Reset' } },
    );
    const r = await s.ask(d(['a', '1']), d(['b', '1']), d(['none', '1']));
    expect(r.responseHeadersToAdd).toEqual([
      { key: 'X-Limit', value: '3' },
      { key: 'X-Remaining', value: '2' },
      { key: 'X-Reset', value: '3570' },
    ]);
  });

  it('counts a backend failure and passes it on', async () => {
    const failing: CounterStore = {
      run: () => Promise.reject(new BackendError('redis: down')),
      supportsTokenBuckets: true,
      ready: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const s = setup(yaml, { store: failing });
    await expect(s.ask(d(['k', 'v']))).rejects.toThrow(BackendError);
    expect(s.stats.lines()).toContain('ratelimit.service.call.should_rate_limit.redis_error: 1');
  });
});

describe('rate_limits in the service', () => {
  const yaml = `domain: test
descriptors:
  - key: k
    rate_limits:
      - {unit: minute, requests_per_unit: 2, name: per_minute}
      - {unit: hour, requests_per_unit: 5, name: per_hour}
  - key: vip
    rate_limit: {unit: minute, requests_per_unit: 100, replaces: [{name: per_minute}]}
`;

  it('a replaced name drops that limit only; the others still count', async () => {
    const { spy, seen } = spyStore();
    const s = setup(yaml, { store: spy });
    const r = await s.ask(d(['k', 'v']), d(['vip', 'x']));
    expect(r.statuses[0]?.currentLimit).toEqual({ name: 'per_hour', requestsPerUnit: 5, unit: 'HOUR' });
    expect(seen).toEqual(['test_k_v_1795348800:1', 'test_vip_x_1795348800']);
  });

  it('headers come from the deciding limit of the most restrictive descriptor', async () => {
    const s = setup(yaml, {
      responseHeaders: { enabled: true, limit: 'X-Limit', remaining: 'X-Remaining', reset: 'X-Reset' },
    });
    await s.ask(d(['k', 'v']));
    const r = await s.ask(d(['k', 'v']));
    expect(r.responseHeadersToAdd).toEqual([
      { key: 'X-Limit', value: '2' },
      { key: 'X-Remaining', value: '0' },
      { key: 'X-Reset', value: '30' },
    ]);
  });
});
