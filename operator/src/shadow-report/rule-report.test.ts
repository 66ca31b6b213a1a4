import { parseRateLimitConfig, type ShadowReport } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { buildReport, carriedReport, indexRules, isReportChanged } from './rule-report.js';

const config = parseRateLimitConfig('team/web', {
  domain: 'web',
  descriptors: [
    {
      key: 'path',
      value: '/login',
      shadow_mode: true,
      rate_limit: { unit: 'minute', requests_per_unit: 5 },
      descriptors: [{ key: 'user', rate_limit: { unit: 'second', requests_per_unit: 1 } }],
    },
    { key: 'remote_address', rate_limit: { unit: 'hour', requests_per_unit: 100 } },
    { key: 'api_key', detailed_metric: true, rate_limit: { unit: 'minute', requests_per_unit: 10 } },
    { key: 'internal', rate_limit: { unlimited: true } },
    {
      key: 'tenant',
      descriptors: [{ key: 'plan', value: 'free', rate_limit: { unit: 'day', requests_per_unit: 9 } }],
    },
  ],
});

const T0 = Date.parse('2026-11-27T12:00:00Z');

describe('indexRules', () => {
  it('names rules as the ratelimit names their statistics, and leaves out those named by request values', () => {
    expect(indexRules(config)).toEqual(
      new Map([
        ['path_/login', { shadowMode: true, limited: true }],
        ['path_/login.user', { shadowMode: false, limited: true }],
        ['remote_address', { shadowMode: false, limited: true }],
        ['internal', { shadowMode: false, limited: false }],
        ['tenant', { shadowMode: false, limited: false }],
        ['tenant.plan_free', { shadowMode: false, limited: true }],
      ]),
    );
  });

  it('names a rule with an address or a separator as the ratelimit names it, sanitised as upstream', () => {
    const blacklist = parseRateLimitConfig('team/edge', {
      domain: 'edge:1',
      descriptors: [
        { key: 'remote_address', value: '50.0.0.5', shadow_mode: true, rate_limit: { unit: 'second' } },
        { key: 'host', value: 'a|b', rate_limit: { unit: 'second', requests_per_unit: 1 } },
      ],
    });
    expect([...indexRules(blacklist).keys()]).toEqual(['remote_address_50_0_0_5', 'host_a_b']);
  });
});

describe('buildReport', () => {
  const hits = new Map([
    ['path_/login', [40, 30, 2, 10, 30]],
    ['remote_address', [100, 0, 0, 100, 0]],
    ['api_key_abc', [7, 0, 0, 7, 0]],
    ['internal', [0, 0, 0, 0, 0]],
  ]);

  it('lists rules with a limit and keys with hits, most hits first; keys of request values without shadowMode', () => {
    const report = buildReport({
      config,
      hits,
      maxRules: 20,
      windowMs: 3_600_000,
      fromMs: T0,
      uncountedMs: 0,
      nowMs: T0 + 60_000,
    });
    expect(report).toEqual({
      domain: 'web',
      windowSeconds: 3600,
      from: '2026-11-27T12:00:00Z',
      collectedAt: '2026-11-27T12:01:00Z',
      shadowModeHits: 30,
      rules: [
        {
          key: 'remote_address',
          shadowMode: false,
          totalHits: 100,
          overLimit: 0,
          nearLimit: 0,
          withinLimit: 100,
          shadowModeHits: 0,
        },
        {
          key: 'path_/login',
          shadowMode: true,
          totalHits: 40,
          overLimit: 30,
          nearLimit: 2,
          withinLimit: 10,
          shadowModeHits: 30,
        },
        { key: 'api_key_abc', totalHits: 7, overLimit: 0, nearLimit: 0, withinLimit: 7, shadowModeHits: 0 },
        {
          key: 'internal',
          shadowMode: false,
          totalHits: 0,
          overLimit: 0,
          nearLimit: 0,
          withinLimit: 0,
          shadowModeHits: 0,
        },
        {
          key: 'path_/login.user',
          shadowMode: false,
          totalHits: 0,
          overLimit: 0,
          nearLimit: 0,
          withinLimit: 0,
          shadowModeHits: 0,
        },
        {
          key: 'tenant.plan_free',
          shadowMode: false,
          totalHits: 0,
          overLimit: 0,
          nearLimit: 0,
          withinLimit: 0,
          shadowModeHits: 0,
        },
      ],
      truncated: 0,
    });
  });

  it('cuts the list at maxRules, counting the rest, and still sums every rule into shadowModeHits', () => {
    const withShadowLast = new Map([...hits, ['tenant.plan_free', [1, 1, 0, 0, 5]]]);
    const report = buildReport({
      config,
      hits: withShadowLast,
      maxRules: 2,
      windowMs: 60_000,
      fromMs: T0,
      uncountedMs: 0,
      nowMs: T0,
    });
    expect(report.rules.map((r) => r.key)).toEqual(['remote_address', 'path_/login']);
    expect(report.truncated).toBe(4);
    expect(report.shadowModeHits).toBe(35);
  });

  it('reports every limited rule with zeros when the domain had no hits', () => {
    const report = buildReport({
      config,
      hits: undefined,
      maxRules: 20,
      windowMs: 60_000,
      fromMs: T0,
      uncountedMs: 0,
      nowMs: T0,
    });
    expect(report.rules.map((r) => [r.key, r.totalHits])).toEqual([
      ['path_/login', 0],
      ['path_/login.user', 0],
      ['remote_address', 0],
      ['tenant.plan_free', 0],
    ]);
  });
});

describe('buildReport uncountedSeconds', () => {
  it('says how many seconds of the window were not counted, and is left out when none', () => {
    const build = (uncountedMs: number) =>
      buildReport({
        config,
        hits: undefined,
        maxRules: 1,
        windowMs: 60_000,
        fromMs: T0,
        uncountedMs,
        nowMs: T0,
      });
    expect(build(42_400).uncountedSeconds).toBe(42);
    expect(build(400)).not.toHaveProperty('uncountedSeconds');
  });
});

describe('carriedReport', () => {
  const written: ShadowReport = {
    domain: 'web',
    windowSeconds: 600,
    from: '2026-11-27T11:55:00Z',
    collectedAt: '2026-11-27T11:58:00Z',
    uncountedSeconds: 12,
    shadowModeHits: 3,
    rules: [
      {
        key: 'path_/login',
        shadowMode: true,
        totalHits: 9,
        overLimit: 3,
        nearLimit: 1,
        withinLimit: 6,
        shadowModeHits: 3,
      },
      // a rule dropped from the configuration since: its hits happened all the same
      { key: 'gone', totalHits: 2, overLimit: 0, nearLimit: 0, withinLimit: 2, shadowModeHits: 0 },
    ],
    truncated: 0,
  };
  const at = { domain: 'web', windowMs: 600_000, nowMs: T0 };

  it('gives the counts of every listed rule with the times of the report', () => {
    expect(carriedReport(written, at)).toEqual({
      atMs: Date.parse('2026-11-27T11:58:00Z'),
      fromMs: Date.parse('2026-11-27T11:55:00Z'),
      uncountedMs: 12_000,
      rules: new Map([
        ['path_/login', [9, 3, 1, 6, 3]],
        ['gone', [2, 0, 0, 2, 0]],
      ]),
    });
    // a from further back than the report's own window cannot be: its window's start instead
    expect(carriedReport({ ...written, from: '2026-11-27T10:00:00Z' }, at)?.fromMs).toBe(
      Date.parse('2026-11-27T11:48:00Z'),
    );
    // a longer window than the report's: its counts are all within this one
    expect(carriedReport(written, { ...at, windowMs: 3_600_000 })?.rules.size).toBe(2);
  });

  it('carries nothing of another domain, a longer window, a report older than the window, or no report', () => {
    expect(carriedReport(written, { ...at, domain: 'api' })).toBeUndefined();
    expect(carriedReport(written, { ...at, windowMs: 60_000 })).toBeUndefined();
    expect(carriedReport(written, { ...at, nowMs: Date.parse('2026-11-27T12:08:00Z') })).toBeUndefined();
    expect(carriedReport({ ...written, collectedAt: 'not a time' }, at)).toBeUndefined();
    expect(carriedReport(undefined, at)).toBeUndefined();
    expect(carriedReport({} as ShadowReport, at)).toBeUndefined();
  });
});

describe('isReportChanged', () => {
  const rule = {
    key: 'k',
    shadowMode: true,
    totalHits: 100,
    overLimit: 50,
    nearLimit: 0,
    withinLimit: 50,
    shadowModeHits: 50,
  };
  const report = (r: Partial<typeof rule> = {}, extra: Partial<ShadowReport> = {}): ShadowReport => ({
    domain: 'web',
    windowSeconds: 3600,
    from: '2026-11-27T12:00:00Z',
    collectedAt: '2026-11-27T12:01:00Z',
    shadowModeHits: r.shadowModeHits ?? rule.shadowModeHits,
    rules: [{ ...rule, ...r }],
    truncated: 0,
    ...extra,
  });

  it('is true without an earlier report, or with one that is not a report', () => {
    expect(isReportChanged(undefined, report())).toBe(true);
    expect(isReportChanged({} as ShadowReport, report())).toBe(true);
  });

  it('is false when only the times or the uncounted seconds moved, or counts moved by 10% or less', () => {
    expect(isReportChanged(report(), report({}, { collectedAt: '2026-11-27T13:00:00Z', from: 'x' }))).toBe(
      false,
    );
    expect(isReportChanged(report(), report({}, { uncountedSeconds: 40 }))).toBe(false);
    expect(isReportChanged(report(), report({ totalHits: 110, withinLimit: 55, shadowModeHits: 46 }))).toBe(
      false,
    );
  });

  it('is true when a count moved by more than 10%, appeared or went to zero', () => {
    expect(isReportChanged(report(), report({ totalHits: 112 }))).toBe(true);
    expect(isReportChanged(report(), report({ nearLimit: 1 }))).toBe(true);
    expect(isReportChanged(report(), report({ overLimit: 0 }))).toBe(true);
    expect(isReportChanged(report(), report({ shadowModeHits: 0 }))).toBe(true);
  });

  it('is true when the domain, the rules, a shadow mode, the truncation or the window changed', () => {
    expect(isReportChanged(report(), report({}, { domain: 'api' }))).toBe(true);
    expect(isReportChanged(report(), report({ key: 'other' }))).toBe(true);
    expect(isReportChanged(report(), report({ shadowMode: false }))).toBe(true);
    expect(isReportChanged(report(), report({}, { truncated: 1 }))).toBe(true);
    expect(isReportChanged(report(), report({}, { windowSeconds: 60 }))).toBe(true);
  });
});
