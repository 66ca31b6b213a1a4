import {
  createEnvReader,
  readLogOptions,
  type EnvReader,
  type EnvSource,
  type LogFormat,
  type LogLevel,
} from '@portcullis/kit';
import {
  readKvstore,
  readObjcache,
  type KvstoreSettings,
  type ObjcacheSettings,
} from './backend-settings.js';

export const BACKEND_TYPES = ['redis', 'objcache', 'memory'] as const;
export type BackendType = (typeof BACKEND_TYPES)[number];

export interface Settings {
  http: { host: string; port: number };
  grpc: { host: string; port: number };
  debug: { host: string; port: number };
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
    responseHeaders: { enabled: boolean; limit: string; remaining: string; reset: string };
    /** Bytes for keys known to be over limit in their window, answered without the backend; 0 = off. */
    localCacheSizeBytes: number;
  };
  kvstore: KvstoreSettings;
  objcache: ObjcacheSettings;
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
    http: { host: env.str('HOST', { default: '0.0.0.0' }), port: port(env, 'PORT', 8080) },
    grpc: { host: env.str('GRPC_HOST', { default: '0.0.0.0' }), port: port(env, 'GRPC_PORT', 8081) },
    debug: { host: env.str('DEBUG_HOST', { default: '0.0.0.0' }), port: port(env, 'DEBUG_PORT', 6070) },
    log: readLogOptions(env, 'warn'),
    config: {
      type: configType,
      xds: {
        serverUrl: env.str('CONFIG_GRPC_XDS_SERVER_URL', { default: 'localhost:18000' }),
        nodeId: env.str('CONFIG_GRPC_XDS_NODE_ID', { default: 'default' }),
        nodeMetadata: pairs(env, { name: 'CONFIG_GRPC_XDS_NODE_METADATA', separator: '=' }),
        retryIntervalMs: env.durationMs('CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL', { default: '3s' }),
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
      expirationJitterMaxSeconds: env.int('EXPIRATION_JITTER_MAX_SECONDS', { default: 300, min: 0 }),
      shadowMode: env.bool('SHADOW_MODE', { default: false }),
      responseHeaders: {
        enabled: env.bool('LIMIT_RESPONSE_HEADERS_ENABLED', { default: false }),
        limit: env.str('LIMIT_LIMIT_HEADER', { default: 'RateLimit-Limit' }),
        remaining: env.str('LIMIT_REMAINING_HEADER', { default: 'RateLimit-Remaining' }),
        reset: env.str('LIMIT_RESET_HEADER', { default: 'RateLimit-Reset' }),
      },
      localCacheSizeBytes: env.int('LOCAL_CACHE_SIZE_IN_BYTES', { default: 0, min: 0 }),
    },
    kvstore: readKvstore(env),
    objcache: readObjcache(env, backendType === 'objcache'),
  };
  env.finish();
  return deepFreeze(settings);
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

function deepFreeze<T extends object>(o: T): Readonly<T> {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v as object);
  return Object.freeze(o);
}

/** The directory whose `*.yaml` files hold the rules. */
export function configDirectory(c: Settings['config']): string {
  return [c.runtimeRoot, c.runtimeSubdirectory, c.runtimeAppDirectory].filter((p) => p !== '').join('/');
}
