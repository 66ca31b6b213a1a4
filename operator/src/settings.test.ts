import { fileURLToPath } from 'node:url';
import { checkSettingsDocs, LIB_SOURCE_DIRS, settingsProblems } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.js';

const problemsOf = (env: Record<string, string>): readonly string[] => settingsProblems(loadSettings, env);

describe('operator settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect(s.leaderElection).toEqual({
      enabled: true,
      leaseName: 'portcullis-operator',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(s.discovery).toEqual({
      endpoints: { ratelimit: [{ address: '127.0.0.1', port: 8081 }] },
      services: { ratelimit: { service: 'portcullis-ratelimit', portName: 'grpc' } },
    });
    expect(s.xds).toMatchObject({ host: '0.0.0.0', port: 18_000 });
  });

  it('reads repeated endpoints of one name', () => {
    const s = loadSettings({ OPERATOR_SERVICE_ENDPOINTS: 'ratelimit=10.0.0.1:8081,ratelimit=10.0.0.2:8081' });
    expect(s.discovery.endpoints).toEqual({
      ratelimit: [
        { address: '10.0.0.1', port: 8081 },
        { address: '10.0.0.2', port: 8081 },
      ],
    });
  });

  it('issue 17: refuses leader-election durations out of range, naming the range', () => {
    expect(
      problemsOf({
        LEADER_ELECTION_LEASE_DURATION: '500ms',
        LEADER_ELECTION_RENEW_DEADLINE: '2h',
        LEADER_ELECTION_RETRY_PERIOD: '0',
        XDS_PORT: '70000',
      }),
    ).toEqual([
      'XDS_PORT="70000": expected an integer ≥ 0 ≤ 65535',
      'LEADER_ELECTION_LEASE_DURATION="500ms": expected a duration ≥ 1s ≤ 1h',
      'LEADER_ELECTION_RENEW_DEADLINE="2h": expected a duration ≥ 100ms ≤ 1h',
      'LEADER_ELECTION_RETRY_PERIOD="0": expected a duration ≥ 10ms ≤ 1h',
    ]);
    expect(
      problemsOf({
        LEADER_ELECTION_LEASE_DURATION: '1s',
        LEADER_ELECTION_RENEW_DEADLINE: '1s',
        LEADER_ELECTION_RETRY_PERIOD: '100ms',
      }),
    ).toEqual(['LEADER_ELECTION_RENEW_DEADLINE must be shorter than LEADER_ELECTION_LEASE_DURATION']);
  });

  it('reads the shadow-mode report settings, refusing values out of range or that do not fit together', () => {
    expect(loadSettings({}).shadowReport).toEqual({
      intervalMs: 60_000,
      windowMs: 3_600_000,
      maxRules: 20,
      timeoutMs: 5_000,
      maxBytes: 16_777_216,
      endpoints: { name: 'ratelimit', portName: 'debug' },
      urls: [],
    });
    expect(loadSettings({ OPERATOR_SHADOW_REPORT_INTERVAL: '0' }).shadowReport.intervalMs).toBe(0);
    expect(
      problemsOf({
        OPERATOR_SHADOW_REPORT_INTERVAL: '10ms',
        OPERATOR_SHADOW_REPORT_MAX_RULES: '0',
        OPERATOR_SHADOW_REPORT_MAX_BYTES: '1000',
        OPERATOR_SHADOW_REPORT_PORT: 'ratelimit',
        OPERATOR_SHADOW_REPORT_URLS: 'http://10.0.0.1:6070/metrics,ftp://x',
      }),
    ).toEqual([
      'OPERATOR_SHADOW_REPORT_INTERVAL="10ms": expected 0 (off) or a duration ≥ 100ms ≤ 1h',
      'OPERATOR_SHADOW_REPORT_PORT: "ratelimit" is not name:portName',
      'OPERATOR_SHADOW_REPORT_URLS: "ftp://x" is not an http(s) URL',
      'OPERATOR_SHADOW_REPORT_MAX_RULES="0": expected an integer ≥ 1 ≤ 200',
      'OPERATOR_SHADOW_REPORT_MAX_BYTES="1000": expected an integer ≥ 65536 ≤ 1073741824',
    ]);
    expect(
      problemsOf({ OPERATOR_SHADOW_REPORT_INTERVAL: '2m', OPERATOR_SHADOW_REPORT_WINDOW: '1m' }),
    ).toEqual(['OPERATOR_SHADOW_REPORT_INTERVAL must not be longer than OPERATOR_SHADOW_REPORT_WINDOW']);
    expect(problemsOf({ OPERATOR_SHADOW_REPORT_PORT: 'limits:metrics' })).toEqual([
      'OPERATOR_SHADOW_REPORT_PORT: "limits" is not a name in OPERATOR_DISCOVERY_SERVICES',
    ]);
    // with URLs, or in directory mode, the discovered services are not used
    expect(
      problemsOf({
        OPERATOR_SHADOW_REPORT_PORT: 'limits:metrics',
        OPERATOR_SHADOW_REPORT_URLS: 'http://a:1/metrics',
      }),
    ).toEqual([]);
    expect(
      problemsOf({ OPERATOR_SOURCE: 'directory', OPERATOR_SHADOW_REPORT_PORT: 'limits:metrics' }),
    ).toEqual([]);
  });

  it('is frozen all the way down', () => {
    const s = loadSettings({});
    expect(() => {
      (s.leaderElection as { retryPeriodMs: number }).retryPeriodMs = 1;
    }).toThrow(TypeError);
    expect(() => {
      (s.discovery.endpoints as Record<string, unknown>).other = [];
    }).toThrow(TypeError);
    expect(() => {
      (s.discovery.endpoints.ratelimit?.[0] as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('documents every variable it reads in docs/settings.md, each spelled whole in the source', () => {
    expect(
      checkSettingsDocs({
        readme: fileURLToPath(new URL('../docs/settings.md', import.meta.url)),
        load: loadSettings,
        sources: [fileURLToPath(new URL('.', import.meta.url)), ...LIB_SOURCE_DIRS],
      }),
    ).toEqual([]);
  });
});
