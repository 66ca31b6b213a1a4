import {
  createEnvReader,
  deepFreeze,
  DEFAULT_MAX_JSON_DEPTH,
  readHttpTimeouts,
  readLogOptions,
  readTracingSettings,
  type EnvReader,
  type EnvSource,
  type HttpTimeouts,
  type LogFormat,
  type LogLevel,
  type TracingSettings,
} from '@portcullis/kit';
import {
  readKvstore,
  readObjcache,
  type KvstoreSettings,
  type ObjcacheSettings,
} from './backends/backend-settings.js';
import { DEFAULT_MEMORY_MAX_KEYS } from './backends/memory.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from './servers/request-bounds.js';
import { DEFAULT_MAX_DYNAMIC_KEYS } from './stats/stats.js';
import {
  readPrometheusNaming,
  readStatsdSinkSettings,
  type PrometheusNaming,
  type StatsdSinkSettings,
} from './stats/stats-settings.js';

export const BACKEND_TYPES = ['redis', 'objcache', 'memory'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

export interface Settings {
  http: {
    host: string;
    port: number;
    /** `HTTP_*_TIMEOUT`: for this port and the debug port. */
    timeouts: HttpTimeouts;
    /** `HTTP_MAX_BODY_DEPTH`: how deep a `/json` body may nest (`{}` is 1). */
    maxBodyDepth: number;
  };
  grpc: {
    host: string;
    port: number;
    /** `GRPC_MAX_CONNECTION_AGE`: a GOAWAY is sent after this, ±10% jitter, as grpc-js adds it. */
    maxConnectionAgeMs: number;
    /** `GRPC_MAX_CONNECTION_AGE_GRACE`: then the connection is closed, calls or not. */
    maxConnectionAgeGraceMs: number;
    /** Server TLS; with `clientCaCert` a client certificate signed by it is required, and `clientSan` checked. */
    tls: {
      enabled: boolean;
      cert: string;
      key: string;
      clientCaCert: string;
      clientSan: string;
      /** `GRPC_SERVER_TLS_RELOAD_INTERVAL`: how often the files are read again for new certificates; 0 = never. */
      reloadIntervalMs: number;
    };
  };
  debug: { host: string; port: number };
  /** What one decision may ask for, on gRPC and `/json`; past it, `INVALID_ARGUMENT` / 400 before any work. */
  request: RequestBounds;
  /**
   * `RATELIMIT_WORKERS`: processes serving the gRPC and HTTP ports; 0 = the default (the CPUs this process
   * may use, 1 with the memory backend), resolved at start (kit's `runMainWithWorkers`).
   */
  workers: number;
  log: { level: LogLevel; format: LogFormat };
  config: {
    /** `FILE`: YAML files under the runtime root; `GRPC_XDS_SOTW`: an xDS management server. */
    type: 'FILE' | 'GRPC_XDS_SOTW';
    xds: {
      serverUrl: string;
      nodeId: string;
      nodeMetadata: Record<string, string>;
      retryIntervalMs: number;
      additionalHeaders: Record<string, string>;
      tls: { enabled: boolean; clientCert: string; clientKey: string; caCert: string; serverSan: string };
    };
    /** `<root>/<subdirectory>/<appdirectory>`, holding the `*.yaml` files. */
    runtimeRoot: string;
    runtimeSubdirectory: string;
    runtimeAppDirectory: string;
    ignoreDotFiles: boolean;
    watchRoot: boolean;
    mergeDomains: boolean;
    forceStartWithoutInitialConfig: boolean;
    healthyWithAtLeastOneConfigLoaded: boolean;
  };
  limiter: {
    backendType: BackendType;
    cacheKeyPrefix: string;
    nearLimitRatio: number;
    expirationJitterMaxSeconds: number;
    shadowMode: boolean;
    /** `QUOTA_MODE`: every descriptor is a quota descriptor. */
    quotaMode: boolean;
    /** `RESPONSE_DYNAMIC_METADATA`: responses carry `dynamic_metadata`. */
    dynamicMetadata: boolean;
    responseHeaders: { enabled: boolean; limit: string; remaining: string; reset: string };
    /** Bytes for keys known to be over limit in their window, answered without the backend; 0 = off. */
    localCacheSizeBytes: number;
    /** `BACKEND_TYPE=memory`: keys held at once; past it, calls needing new keys fail as a dead backend does. */
    memoryMaxKeys: number;
    /** Once one limit of a request is over, the others count no hits (a read round trip first). */
    stopIncrementWhenOverLimit: boolean;
  };
  kvstore: KvstoreSettings;
  objcache: ObjcacheSettings;
  stats: {
    /** `USE_STATSD`/`USE_DOG_STATSD`: counters are sent as deltas to `host:port` every `flushIntervalMs`. */
    statsd: StatsdSinkSettings;
    flushIntervalMs: number;
    /** `EXTRA_TAGS` `k:v,k2:v2`: tags on every statsd line, labels on every Prometheus metric. */
    extraTags: Record<string, string>;
    /** Most statistics names made from request values; hits beyond go to `<domain>.stats_overflow`. */
    maxDynamicKeys: number;
    /** `PROMETHEUS_NAMING`: `/metrics` names as ours, or as upstream's statsd_exporter mapping names them. */
    prometheusNaming: PrometheusNaming;
  };
  tracing: TracingSettings;
}

/**
 * Reads every setting once, by the names of the spec with upstream Envoy ratelimit's names (`REDIS_*`,
 * `BACKEND_TYPE=memcache`) as aliases. Throws a `SettingsError` naming every bad variable.
 */
export function loadSettings(source: EnvSource = process.env): Readonly<Settings> {
  const env = createEnvReader(source);

  const configType = env.oneOf('CONFIG_TYPE', ['FILE', 'GRPC_XDS_SOTW'], { default: 'FILE' });
  const backendName = env.str('BACKEND_TYPE', { default: 'redis' }).toLowerCase();
  // `memcache` is upstream's name for the object cache
  const backendType = BACKEND_TYPES.find(
    (b) => b === (backendName === 'memcache' ? 'objcache' : backendName),
  );
  if (!backendType) {
    env.problem(`BACKEND_TYPE="${backendName}": expected one of ${BACKEND_TYPES.join(', ')} (or memcache)`);
  }

  const settings: Settings = {
    http: {
      host: env.str('HOST', { default: '0.0.0.0' }),
      port: port(env, 'PORT', 8080),
      timeouts: readHttpTimeouts(env, {
        requestMs: 'HTTP_REQUEST_TIMEOUT',
        headersMs: 'HTTP_HEADERS_TIMEOUT',
        idleMs: 'HTTP_IDLE_TIMEOUT',
      }),
      maxBodyDepth: env.int('HTTP_MAX_BODY_DEPTH', { default: DEFAULT_MAX_JSON_DEPTH, min: 1, max: 1024 }),
    },
    grpc: readGrpc(env),
    debug: { host: env.str('DEBUG_HOST', { default: '0.0.0.0' }), port: port(env, 'DEBUG_PORT', 6070) },
    request: {
      maxDescriptors: env.int('RATELIMIT_MAX_DESCRIPTORS', {
        default: DEFAULT_REQUEST_BOUNDS.maxDescriptors,
        min: 1,
        max: 1_000_000,
      }),
      maxDescriptorEntries: env.int('RATELIMIT_MAX_DESCRIPTOR_ENTRIES', {
        default: DEFAULT_REQUEST_BOUNDS.maxDescriptorEntries,
        min: 1,
        max: 1_000_000,
      }),
    },
    workers: env.int('RATELIMIT_WORKERS', { default: 0, min: 0, max: 64 }),
    log: readLogOptions(env, 'warn'),
    config: {
      type: configType,
      xds: {
        serverUrl: env.str('CONFIG_GRPC_XDS_SERVER_URL', { default: 'localhost:18000' }),
        nodeId: env.str('CONFIG_GRPC_XDS_NODE_ID', { default: 'default' }),
        nodeMetadata: pairs(env, { name: 'CONFIG_GRPC_XDS_NODE_METADATA', separator: '=' }),
        retryIntervalMs: env.durationMs('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', {
          default: '3s',
          min: '10ms',
          max: '5m',
        }),
        additionalHeaders: pairs(env, { name: 'CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS', separator: ':' }),
        tls: {
          enabled: env.bool('CONFIG_GRPC_XDS_SERVER_USE_TLS', { default: false }),
          clientCert: env.str('CONFIG_GRPC_XDS_CLIENT_TLS_CERT'),
          clientKey: env.str('CONFIG_GRPC_XDS_CLIENT_TLS_KEY'),
          caCert: env.str('CONFIG_GRPC_XDS_SERVER_TLS_CACERT'),
          serverSan: env.str('CONFIG_GRPC_XDS_SERVER_TLS_SAN'),
        },
      },
      runtimeRoot: env.str('RUNTIME_ROOT', { default: '/srv/runtime_data/current' }),
      runtimeSubdirectory: env.str('RUNTIME_SUBDIRECTORY'),
      runtimeAppDirectory: env.str('RUNTIME_APPDIRECTORY', { default: 'config' }),
      ignoreDotFiles: env.bool('RUNTIME_IGNOREDOTFILES', { default: false }),
      watchRoot: env.bool('RUNTIME_WATCH_ROOT', { default: true }),
      mergeDomains: env.bool('MERGE_DOMAIN_CONFIG', { default: false }),
      forceStartWithoutInitialConfig: env.bool('FORCE_START_WITHOUT_INITIAL_CONFIG', { default: false }),
      healthyWithAtLeastOneConfigLoaded: env.bool('HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED', {
        default: false,
      }),
    },
    limiter: {
      backendType: backendType ?? 'redis',
      cacheKeyPrefix: env.str('CACHE_KEY_PREFIX'),
      nearLimitRatio: env.num('NEAR_LIMIT_RATIO', { default: 0.8, min: 0, max: 1 }),
      expirationJitterMaxSeconds: env.int('EXPIRATION_JITTER_MAX_SECONDS', {
        default: 300,
        min: 0,
        max: 86_400,
      }),
      shadowMode: env.bool('SHADOW_MODE', { default: false }),
      quotaMode: env.bool('QUOTA_MODE', { default: false }),
      dynamicMetadata: env.bool('RESPONSE_DYNAMIC_METADATA', { default: false }),
      responseHeaders: {
        enabled: env.bool('LIMIT_RESPONSE_HEADERS_ENABLED', { default: false }),
        limit: env.str('LIMIT_LIMIT_HEADER', { default: 'RateLimit-Limit' }),
        remaining: env.str('LIMIT_REMAINING_HEADER', { default: 'RateLimit-Remaining' }),
        reset: env.str('LIMIT_RESET_HEADER', { default: 'RateLimit-Reset' }),
      },
      localCacheSizeBytes: env.int('LOCAL_CACHE_SIZE_IN_BYTES', { default: 0, min: 0, max: 8 * 1024 ** 3 }),
      memoryMaxKeys: env.int('MEMORY_MAX_KEYS', {
        default: DEFAULT_MEMORY_MAX_KEYS,
        min: 1,
        max: 10_000_000,
      }),
      stopIncrementWhenOverLimit: env.bool('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', { default: false }),
    },
    kvstore: readKvstore(env),
    objcache: readObjcache(env, backendType === 'objcache'),
    stats: {
      statsd: readStatsdSinkSettings(env, port(env, 'STATSD_PORT', 8125)),
      flushIntervalMs: env.durationMs('STATS_FLUSH_INTERVAL', { default: '10s', min: '10ms', max: '1h' }),
      extraTags: pairs(env, { name: 'EXTRA_TAGS', separator: ':' }),
      maxDynamicKeys: env.int('STATS_MAX_DYNAMIC_KEYS', {
        default: DEFAULT_MAX_DYNAMIC_KEYS,
        min: 0,
        max: 1_000_000,
      }),
      prometheusNaming: readPrometheusNaming(env),
    },
    tracing: readTracingSettings(env, { serviceName: 'RateLimit' }),
  };
  for (const key of Object.keys(settings.stats.extraTags)) {
    // they are Prometheus labels too
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(key)) env.problem(`EXTRA_TAGS: "${key}" is not a valid tag name`);
  }
  if (settings.workers > 1 && backendType === 'memory') {
    env.problem(
      `RATELIMIT_WORKERS=${settings.workers}: BACKEND_TYPE=memory keeps the counters in the process, ` +
        'so more than one worker would split them',
    );
  }
  env.finish();
  return deepFreeze(settings);
}

function readGrpc(env: EnvReader): Settings['grpc'] {
  const tls = {
    enabled: env.bool('GRPC_SERVER_USE_TLS', { default: false }),
    cert: env.str('GRPC_SERVER_TLS_CERT'),
    key: env.str('GRPC_SERVER_TLS_KEY'),
    clientCaCert: env.str('GRPC_CLIENT_TLS_CACERT'),
    clientSan: env.str('GRPC_CLIENT_TLS_SAN'),
    reloadIntervalMs: env.durationMs('GRPC_SERVER_TLS_RELOAD_INTERVAL', {
      default: '10s',
      min: '100ms',
      max: '24h',
      zeroMeans: 'never',
    }),
  };
  if (tls.enabled && (tls.cert === '' || tls.key === '')) {
    env.problem('GRPC_SERVER_USE_TLS=true: GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY are required');
  }
  if (tls.clientSan !== '' && tls.clientCaCert === '') {
    env.problem('GRPC_CLIENT_TLS_SAN: needs GRPC_CLIENT_TLS_CACERT, or no client certificate is asked for');
  }
  // 540h plus the 10% jitter stays inside a Node timer's range (2^31 - 1 ms, 596h)
  const age = (name: string, fallback: string): number =>
    env.durationMs(name, { default: fallback, min: '100ms', max: '540h', zeroMeans: 'no limit' });
  return {
    host: env.str('GRPC_HOST', { default: '0.0.0.0' }),
    port: port(env, 'GRPC_PORT', 8081),
    maxConnectionAgeMs: age('GRPC_MAX_CONNECTION_AGE', '24h'),
    maxConnectionAgeGraceMs: age('GRPC_MAX_CONNECTION_AGE_GRACE', '1h'),
    tls,
  };
}

/** `k1=v1,k2=v2` (or with `:`) into a record; an item without the separator is a problem. */
function pairs(env: EnvReader, at: { name: string; separator: string }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of env.list(at.name)) {
    const i = item.indexOf(at.separator);
    if (i <= 0) env.problem(`${at.name}: "${item}" is not key${at.separator}value`);
    else out[item.slice(0, i).trim()] = item.slice(i + 1).trim();
  }
  return out;
}

/** Just the log settings, bad values replaced by defaults: how to report that the other settings are bad. */
export function loadLogSettings(source: EnvSource = process.env): Settings['log'] {
  return readLogOptions(createEnvReader(source), 'warn');
}

function port(env: EnvReader, name: string, fallback: number): number {
  return env.int(name, { default: fallback, min: 0, max: 65_535 });
}

/** The directory whose `*.yaml` files hold the rules. */
export function configDirectory(c: Settings['config']): string {
  return [c.runtimeRoot, c.runtimeSubdirectory, c.runtimeAppDirectory].filter((p) => p !== '').join('/');
}
