import { parseRateLimitConfig } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { buildReport, indexRules, isReportChanged, type ShadowReport } from './rule-report.js';

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
      nowMs: T0 + 60_000,
    });
    expect(report).toEqual({
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

  it('is false when only the times moved, or counts moved by 10% or less', () => {
    expect(isReportChanged(report(), report({}, { collectedAt: '2026-11-27T13:00:00Z', from: 'x' }))).toBe(
      false,
    );
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

  it('is true when the rules, a shadow mode, the truncation or the window changed', () => {
    expect(isReportChanged(report(), report({ key: 'other' }))).toBe(true);
    expect(isReportChanged(report(), report({ shadowMode: false }))).toBe(true);
    expect(isReportChanged(report(), report({}, { truncated: 1 }))).toBe(true);
    expect(isReportChanged(report(), report({}, { windowSeconds: 60 }))).toBe(true);
  });
});
