import { fileURLToPath } from 'node:url';
import { SettingsError } from '@portcullis/kit';
import { checkSettingsDocs, LIB_SOURCE_DIRS, settingsProblems } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { configDirectory, loadSettings } from './settings.js';

const problemsOf = (env: Record<string, string>): readonly string[] => settingsProblems(loadSettings, env);

describe('loadSettings', () => {
  it('has the spec defaults', () => {
    const s = loadSettings({});
    expect(s.http).toEqual({
      host: '0.0.0.0',
      port: 8080,
      timeouts: { requestMs: 30_000, headersMs: 10_000, idleMs: 72_000 },
      maxBodyDepth: 64,
    });
    expect(s.limiter.memoryMaxKeys).toBe(250_000);
    expect(s.grpc).toEqual({
      host: '0.0.0.0',
      port: 8081,
      maxConnectionAgeMs: 86_400_000,
      maxConnectionAgeGraceMs: 3_600_000,
      tls: { enabled: false, cert: '', key: '', clientCaCert: '', clientSan: '', reloadIntervalMs: 10_000 },
    });
    expect(s.stats).toEqual({
      statsd: {
        enabled: true,
        host: 'localhost',
        port: 8125,
        protocol: 'tcp',
        dogStatsd: false,
        mogrifiers: [],
      },
      flushIntervalMs: 10_000,
      extraTags: {},
      maxDynamicKeys: 10_000,
      prometheusNaming: 'portcullis',
    });
    expect(s.tracing).toMatchObject({
      enabled: false,
      exporterProtocol: 'http',
      serviceName: 'RateLimit',
      serviceNamespace: '',
      samplingRate: 1,
    });
    expect(s.tracing.serviceInstanceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    expect(s.debug).toEqual({ host: '0.0.0.0', port: 6070 });
    expect(s.log).toEqual({ level: 'warn', format: 'text' });
    expect(configDirectory(s.config)).toBe('/srv/runtime_data/current/config');
    expect(s.config).toMatchObject({
      watchRoot: true,
      ignoreDotFiles: false,
      mergeDomains: false,
      forceStartWithoutInitialConfig: false,
    });
    expect(s.limiter).toMatchObject({
      backendType: 'redis',
      nearLimitRatio: 0.8,
      shadowMode: false,
      quotaMode: false,
      dynamicMetadata: false,
      cacheKeyPrefix: '',
    });
    expect(s.limiter.responseHeaders).toEqual({
      enabled: false,
      limit: 'RateLimit-Limit',
      remaining: 'RateLimit-Remaining',
      reset: 'RateLimit-Reset',
    });
    expect(s.kvstore).toMatchObject({ url: 'localhost:6379', socketType: 'tcp', timeoutMs: 10_000 });
    expect(Object.isFrozen(s.kvstore.tls)).toBe(true);
  });

  it("accepts upstream's REDIS_* names as aliases", () => {
    const s = loadSettings({
      REDIS_URL: '/var/run/nutcracker/ratelimit.sock',
      REDIS_AUTH: 'user:secret',
      REDIS_POOL_SIZE: '4',
      REDIS_TLS: 'true',
      REDIS_TIMEOUT: '250ms',
    });
    expect(s.kvstore).toMatchObject({
      url: '/var/run/nutcracker/ratelimit.sock',
      socketType: 'unix',
      auth: 'user:secret',
      poolSize: 4,
      timeoutMs: 250,
    });
    expect(s.kvstore.tls.enabled).toBe(true);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadSettings({
        PORT: 'http',
        KVSTORE_POOL_SIZE: 'ten',
        NEAR_LIMIT_RATIO: '2',
        BACKEND_TYPE: 'mongo',
        LOG_LEVEL: 'loud',
        MEMORY_MAX_KEYS: '0',
      });
    } catch (e: unknown) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      'BACKEND_TYPE="mongo": expected one of redis, objcache, memory (or memcache)',
      'PORT="http": expected an integer ≥ 0 ≤ 65535',
      'LOG_LEVEL="loud": expected one of trace, debug, info, warn, error, fatal',
      'NEAR_LIMIT_RATIO="2": expected a number ≥ 0 ≤ 1',
      'MEMORY_MAX_KEYS="0": expected an integer ≥ 1 ≤ 10000000',
      'KVSTORE_POOL_SIZE="ten": expected an integer ≥ 1 ≤ 1024',
    ]);
  });

  it('reads the gRPC, stats and tracing settings', () => {
    const s = loadSettings({
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: '/c.pem',
      GRPC_SERVER_TLS_KEY: '/k.pem',
      GRPC_CLIENT_TLS_CACERT: '/ca.pem',
      GRPC_CLIENT_TLS_SAN: 'envoy.test',
      GRPC_SERVER_TLS_RELOAD_INTERVAL: '1m',
      GRPC_MAX_CONNECTION_AGE: '10m',
      GRPC_MAX_CONNECTION_AGE_GRACE: '30s',
      STATSD_HOST: '10.0.0.1',
      STATSD_PORT: '9125',
      EXTRA_TAGS: 'cluster:eu-1, team:edge',
      TRACING_EXPORTER_PROTOCOL: 'grpc',
      TRACING_SAMPLING_RATE: '0.25',
      TRACING_SERVICE_INSTANCE_ID: 'pod-1',
    });
    expect(s.grpc).toMatchObject({ maxConnectionAgeMs: 600_000, maxConnectionAgeGraceMs: 30_000 });
    expect(s.grpc.tls).toEqual({
      enabled: true,
      cert: '/c.pem',
      key: '/k.pem',
      clientCaCert: '/ca.pem',
      clientSan: 'envoy.test',
      reloadIntervalMs: 60_000,
    });
    expect(s.stats).toMatchObject({
      statsd: { host: '10.0.0.1', port: 9125 },
      extraTags: { cluster: 'eu-1', team: 'edge' },
    });
    expect(s.tracing).toMatchObject({
      exporterProtocol: 'grpc',
      samplingRate: 0.25,
      serviceInstanceId: 'pod-1',
    });
  });

  it('names gRPC TLS settings that cannot work together', () => {
    expect(() =>
      loadSettings({
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_CLIENT_TLS_SAN: 'x',
        GRPC_MAX_CONNECTION_AGE: '1000h',
      }),
    ).toThrow(
      new SettingsError([
        'GRPC_SERVER_USE_TLS=true: GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY are required',
        'GRPC_CLIENT_TLS_SAN: needs GRPC_CLIENT_TLS_CACERT, or no client certificate is asked for',
        'GRPC_MAX_CONNECTION_AGE="1000h": expected 0 (no limit) or a duration ≥ 100ms ≤ 540h',
      ]),
    );
  });

  it('issue 17: refuses durations and counts out of range, naming the range; 0 only where it means off', () => {
    expect(
      problemsOf({
        HTTP_IDLE_TIMEOUT: '0',
        CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '1h',
        STATS_FLUSH_INTERVAL: '0',
        GRPC_SERVER_TLS_RELOAD_INTERVAL: '1ms',
        GRPC_MAX_CONNECTION_AGE_GRACE: '10ms',
        EXPIRATION_JITTER_MAX_SECONDS: '100000',
        KVSTORE_TIMEOUT: '0',
        OBJCACHE_SRV_REFRESH: '100ms',
      }),
    ).toEqual([
      'HTTP_IDLE_TIMEOUT="0": expected a duration ≥ 10ms ≤ 1h',
      'GRPC_SERVER_TLS_RELOAD_INTERVAL="1ms": expected 0 (never) or a duration ≥ 100ms ≤ 24h',
      'GRPC_MAX_CONNECTION_AGE_GRACE="10ms": expected 0 (no limit) or a duration ≥ 100ms ≤ 540h',
      'CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL="1h": expected a duration ≥ 10ms ≤ 5m',
      'EXPIRATION_JITTER_MAX_SECONDS="100000": expected an integer ≥ 0 ≤ 86400',
      'KVSTORE_TIMEOUT="0": expected a duration ≥ 10ms ≤ 5m',
      'OBJCACHE_SRV_REFRESH="100ms": expected 0 (never) or a duration ≥ 1s ≤ 24h',
      'STATS_FLUSH_INTERVAL="0": expected a duration ≥ 10ms ≤ 1h',
    ]);
    const s = loadSettings({
      GRPC_SERVER_TLS_RELOAD_INTERVAL: '0',
      GRPC_MAX_CONNECTION_AGE: '0',
      KVSTORE_PIPELINE_WINDOW: '0',
      OBJCACHE_SRV_REFRESH: '0',
    });
    expect(s.grpc).toMatchObject({ maxConnectionAgeMs: 0, tls: { reloadIntervalMs: 0 } });
    expect(s.kvstore.pipelineWindowMs).toBe(0);
    expect(s.objcache.srvRefreshMs).toBe(0);
  });

  it('reads RATELIMIT_WORKERS, 0 (the default) to 64; more than one refused with the memory backend', () => {
    expect(loadSettings({}).workers).toBe(0);
    expect(loadSettings({ RATELIMIT_WORKERS: '4' }).workers).toBe(4);
    expect(loadSettings({ BACKEND_TYPE: 'memory', RATELIMIT_WORKERS: '1' }).workers).toBe(1);
    expect(problemsOf({ RATELIMIT_WORKERS: '65' })).toEqual([
      'RATELIMIT_WORKERS="65": expected an integer ≥ 0 ≤ 64',
    ]);
    expect(problemsOf({ BACKEND_TYPE: 'memory', RATELIMIT_WORKERS: '2' })).toEqual([
      'RATELIMIT_WORKERS=2: BACKEND_TYPE=memory keeps the counters in the process, so more than one worker would split them',
    ]);
  });

  it('is frozen all the way down', () => {
    const s = loadSettings({ EXTRA_TAGS: 'team:edge' });
    expect(() => {
      (s.grpc.tls as { reloadIntervalMs: number }).reloadIntervalMs = 1;
    }).toThrow(TypeError);
    expect(() => {
      s.stats.extraTags.team = 'core';
    }).toThrow(TypeError);
    expect(() => {
      (s.limiter.responseHeaders as { limit: string }).limit = 'X';
    }).toThrow(TypeError);
  });

  it('documents every variable it reads in docs/settings.md, each spelled whole in the source', () => {
    expect(
      checkSettingsDocs({
        readme: fileURLToPath(new URL('../docs/settings.md', import.meta.url)),
        load: loadSettings,
        envs: [{}, { KVSTORE_PERSECOND: 'true' }],
        sources: [fileURLToPath(new URL('.', import.meta.url)), ...LIB_SOURCE_DIRS],
        // backends/backend-settings.ts builds the Redis names from a prefix, for the main and per-second Redis
        builtFromPrefix: ['KVSTORE_', 'REDIS_'],
      }),
    ).toEqual([]);
  });
});
