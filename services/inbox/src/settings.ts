import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SESSION_COOKIE, MIN_SIGNING_KEY_CHARS, type SecureCookieMode } from '@portcullis/accounts';
import {
  createEnvReader,
  deepFreeze,
  DEFAULT_HTTP_TIMEOUTS,
  DEFAULT_MAX_JSON_DEPTH,
  readHttpTimeouts,
  readLogOptions,
  readProfileListener,
  readTracingSettings,
  readTrustProxy,
  type EnvSource,
  type HttpTimeouts,
  type LogFormat,
  type LogLevel,
  type ProfileListener,
  type TracingSettings,
  type TrustProxy,
} from '@portcullis/kit';
import {
  INBOX_RATELIMIT_ENV,
  readRateLimitClientSettings,
  type RateLimitClientSettings,
} from '@portcullis/ratelimit-client';
import { INBOX_REDIS_ENV, readRedisConnection, type RedisConnection } from '@portcullis/redis';
import { decodeSecretsKey } from './signatures/secret-box.js';

export interface Settings {
  host: string;
  port: number;
  /** Origin (and optional path) receive URLs are built on, without a trailing slash. */
  publicUrl: string;
  maxBodyBytes: number;
  /** How deep a JSON body may nest (`{}` is 1): management bodies, and captured bodies shown parsed. */
  maxBodyDepth: number;
  timeouts: HttpTimeouts;
  /** After SIGTERM, how long `/readyz` fails before the server stops accepting (load balancers catch up). */
  shutdownDelayMs: number;
  /** Peers whose `X-Forwarded-Proto` (so `Secure` cookies) and `X-Forwarded-For` count. */
  trustProxy: TrustProxy;
  /** For endpoints created through the API; InboxEndpoint resources carry their own. */
  retention: { maxRequests: number; maxAgeMs: number };
  /** How often captures older than their endpoint's maximum age are trimmed. */
  trimIntervalMs: number;
  /** Empty keeps everything in process memory (local mode). */
  /** Redis for captures, forwarding, accounts and sessions (lib/redis's `INBOX_REDIS_ENV` names); empty URL: memory (local mode). */
  redis: RedisConnection;
  /** Start of every Redis key. */
  redisKeyPrefix: string;
  /** Reads every endpoint, including those of InboxEndpoint resources; empty: no admin access. */
  adminToken: string;
  /**
   * The AES-256-GCM key sealing signature secrets at rest: 64 hex digits or 32 bytes of base64. Empty: a
   * random key per process on the memory store; with Redis, secrets are refused (503 SECRETS_KEY_MISSING).
   */
  secretsKey: string;
  xds: { serverUrl: string; nodeId: string; retryIntervalMs: number };
  sse: { heartbeatMs: number; maxPendingEvents: number };
  /**
   * The ratelimit service (gRPC RLS v3) asked before creating an endpoint and before each capture:
   * `INBOX_RATELIMIT_*` (lib/ratelimit-client's `INBOX_RATELIMIT_ENV` names); an empty `target` (no
   * `INBOX_RATELIMIT_URL`, local mode) is no service.
   */
  ratelimit: RateLimitClientSettings & {
    /**
     * Limits counted in this process when there is no service, or a call to it fails and the failure mode is
     * `allow`: the same descriptors, 0 for none.
     */
    fallback: {
      createEndpointPerMinute: number;
      capturePerMinute: number;
      replayPerMinute: number;
      signUpPerHour: number;
      signInPerAddressPerMinute: number;
      signInPerUsernamePerMinute: number;
      /** Counters held at once. */
      maxKeys: number;
    };
  };
  /** scrypt hashes and verifications at once, and waiting; past both, sign-in and sign-up answer 503. */
  passwordChecks: { maxConcurrent: number; maxQueued: number };
  /** Bounds of the memory store (no `INBOX_REDIS_URL`); past them captures and endpoint creation answer 507. */
  memoryStore: { maxBytes: number; maxEndpoints: number };
  /** Forwarding: the worker (`src/worker-main.ts`, on Redis) or, on the memory store, the inbox's local forwarder. */
  worker: {
    /** Its consumer name in the forwarders group: unique per worker, stable across restarts (the pod name). */
    consumerName: string;
    /** A capture another worker has held this long without a heartbeat is claimed (XAUTOCLAIM). */
    claimIdleMs: number;
    /** How long one XREADGROUP blocks, and how often the managed endpoints are re-read. */
    pollMs: number;
    /** Captures forwarded at once by one worker. */
    maxInFlight: number;
    /** Each target's circuit breaker, per worker (see worker/circuit-breaker.ts). */
    breaker: { failures: number; cooldownMs: number; maxCooldownMs: number };
    /** Its `/healthz`, `/readyz` and `/metrics` (on `host`); 0 picks a free port. */
    port: number;
    /** `INBOX_WORKER_DEBUG_PORT` (on `INBOX_DEBUG_HOST`): the worker's `/debug/pprof/`; off by default. */
    profiles: ProfileListener | undefined;
  };
  /**
   * Lets forward and replay targets resolve to loopback, private, link-local and metadata addresses (local
   * mode, tests); the forwarder (worker or local) and the inspector's replay both obey it.
   */
  egressAllowPrivate: boolean;
  /** Sign-in for the web inspector: the gateway's accounts, sessions and cookie (same Redis, keys, name). */
  accounts: {
    /** Signing keys, newest first; empty: one is made at start (sessions end when the inbox restarts). */
    sessionKeys: string[];
    cookieName: string;
    ttlSeconds: number;
    secureCookie: SecureCookieMode;
  };
  /** Filtered listing and export (see `search/`, `export/`). */
  search: {
    /** Captures one filtered `GET …/requests` reads at most before it answers with a cursor. */
    maxScan: number;
    /** Captures one export (HAR, NDJSON) holds at most, newest first. */
    maxExport: number;
    /** Largest HAR an import accepts, in bytes. */
    maxImportBytes: number;
  };
  /** The built inspector (`npm run build:web`): index.html and hashed assets. */
  webDir: string;
  log: { level: LogLevel; format: LogFormat };
  /** `TRACING_*`: the OpenTelemetry SDK each entry point registers. */
  tracing: TracingSettings;
  /** `INBOX_DEBUG_*`: `/debug/pprof/` on a port of its own; off (undefined) by default. */
  profiles: ProfileListener | undefined;
}

export const MIN_ADMIN_TOKEN_CHARS = 32;

/** Each inbox process's default `TRACING_SERVICE_NAME`: the HTTP server and the forwarding worker. */
export const TRACING_SERVICE_NAMES = {
  inbox: 'portcullis-inbox',
  worker: 'portcullis-inbox-worker',
} as const;
export type InboxProcess = keyof typeof TRACING_SERVICE_NAMES;

/**
 * Reads every setting once, for the HTTP server or the forwarding worker (`role`); a bad value, or one out
 * of its range, stops start-up naming the variable.
 */
export function loadSettings(
  source: EnvSource = process.env,
  role: InboxProcess = 'inbox',
): Readonly<Settings> {
  const env = createEnvReader(source);
  const publicUrl = env.str('INBOX_PUBLIC_URL', { default: 'http://localhost:8089' }).replace(/\/+$/, '');
  if (!isHttpUrl(publicUrl)) {
    env.problem(`INBOX_PUBLIC_URL=${JSON.stringify(publicUrl)}: expected an absolute http or https URL`);
  }
  const adminToken = env.str('INBOX_ADMIN_TOKEN');
  if (adminToken !== '' && adminToken.length < MIN_ADMIN_TOKEN_CHARS) {
    env.problem(`INBOX_ADMIN_TOKEN: at least ${MIN_ADMIN_TOKEN_CHARS} characters`);
  }
  const secretsKey = env.str('INBOX_SECRETS_KEY');
  if (secretsKey !== '' && decodeSecretsKey(secretsKey) === undefined) {
    env.problem('INBOX_SECRETS_KEY: expected 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)');
  }
  const sessionKeys = env.list('INBOX_SESSION_KEYS');
  if (sessionKeys.some((k) => k.length < MIN_SIGNING_KEY_CHARS)) {
    env.problem(`INBOX_SESSION_KEYS: each key needs at least ${MIN_SIGNING_KEY_CHARS} characters`);
  }
  const settings: Settings = {
    host: env.str('INBOX_HOST', { default: '0.0.0.0' }),
    // 8090 is the operator's health port in local mode
    port: env.int('INBOX_PORT', { default: 8089, min: 0, max: 65_535 }),
    publicUrl,
    maxBodyBytes: env.int('INBOX_MAX_BODY_BYTES', { default: 1_048_576, min: 1, max: 1024 ** 3 }),
    maxBodyDepth: env.int('INBOX_MAX_BODY_DEPTH', { default: DEFAULT_MAX_JSON_DEPTH, min: 1, max: 1024 }),
    // senders' bodies may be large: 1 MiB (the default limit) in 60 s is 17 KB/s
    timeouts: readHttpTimeouts(
      env,
      {
        requestMs: 'INBOX_REQUEST_TIMEOUT',
        headersMs: 'INBOX_HEADERS_TIMEOUT',
        idleMs: 'INBOX_IDLE_TIMEOUT',
      },
      { ...DEFAULT_HTTP_TIMEOUTS, requestMs: 60_000 },
    ),
    shutdownDelayMs: env.durationMs('INBOX_SHUTDOWN_DELAY', { default: '5s', min: '0s', max: '5m' }),
    trustProxy: readTrustProxy(env, 'INBOX_TRUST_PROXY'),
    retention: {
      maxRequests: env.int('INBOX_RETENTION_MAX_REQUESTS', { default: 500, min: 1, max: 100_000 }),
      maxAgeMs: env.durationMs('INBOX_RETENTION_MAX_AGE', { default: '168h', min: '10ms', max: '8760h' }),
    },
    trimIntervalMs: env.durationMs('INBOX_RETENTION_TRIM_INTERVAL', {
      default: '1m',
      min: '10ms',
      max: '24h',
    }),
    redis: readRedisConnection(env, INBOX_REDIS_ENV, { url: '' }),
    redisKeyPrefix: env.str('INBOX_REDIS_KEY_PREFIX', { default: 'inbox:' }),
    adminToken,
    secretsKey,
    xds: {
      serverUrl: env.str('INBOX_XDS_SERVER_URL'),
      nodeId: env.str('INBOX_XDS_NODE_ID', { default: 'inbox' }),
      retryIntervalMs: env.durationMs('INBOX_XDS_RETRY_INTERVAL', { default: '3s', min: '10ms', max: '5m' }),
    },
    sse: {
      heartbeatMs: env.durationMs('INBOX_SSE_HEARTBEAT', { default: '15s', min: '10ms', max: '1h' }),
      maxPendingEvents: env.int('INBOX_SSE_MAX_PENDING_EVENTS', { default: 256, min: 1, max: 100_000 }),
    },
    ratelimit: {
      ...readRateLimitClientSettings(env, INBOX_RATELIMIT_ENV, { url: '', domain: 'inbox' }),
      // examples/resources/ratelimit-inbox.yaml's limits, so falling back changes nothing per replica
      fallback: {
        createEndpointPerMinute: env.int('INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE', {
          default: 10,
          min: 0,
          max: 1_000_000,
        }),
        capturePerMinute: env.int('INBOX_FALLBACK_CAPTURE_PER_MINUTE', {
          default: 600,
          min: 0,
          max: 1_000_000,
        }),
        replayPerMinute: env.int('INBOX_FALLBACK_REPLAY_PER_MINUTE', { default: 60, min: 0, max: 1_000_000 }),
        signUpPerHour: env.int('INBOX_FALLBACK_SIGN_UP_PER_HOUR', { default: 20, min: 0, max: 1_000_000 }),
        signInPerAddressPerMinute: env.int('INBOX_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE', {
          default: 10,
          min: 0,
          max: 1_000_000,
        }),
        signInPerUsernamePerMinute: env.int('INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE', {
          default: 5,
          min: 0,
          max: 1_000_000,
        }),
        maxKeys: env.int('INBOX_FALLBACK_MAX_KEYS', { default: 10_000, min: 1, max: 10_000_000 }),
      },
    },
    passwordChecks: {
      maxConcurrent: env.int('INBOX_PASSWORD_CHECKS_MAX_CONCURRENT', { default: 2, min: 1, max: 64 }),
      maxQueued: env.int('INBOX_PASSWORD_CHECKS_MAX_QUEUED', { default: 8, min: 0, max: 10_000 }),
    },
    memoryStore: {
      maxBytes: env.int('INBOX_MEMORY_MAX_BYTES', { default: 256 * 1024 ** 2, min: 1, max: 16 * 1024 ** 3 }),
      maxEndpoints: env.int('INBOX_MEMORY_MAX_ENDPOINTS', { default: 10_000, min: 1, max: 10_000_000 }),
    },
    worker: {
      consumerName: env.str('INBOX_WORKER_NAME', { default: hostname() }),
      // a worker marks its captures live every third of this, so no more often than every 10ms
      claimIdleMs: env.durationMs('INBOX_WORKER_CLAIM_IDLE', { default: '1m', min: '30ms', max: '24h' }),
      pollMs: env.durationMs('INBOX_WORKER_POLL_INTERVAL', { default: '5s', min: '10ms', max: '5m' }),
      maxInFlight: env.int('INBOX_WORKER_MAX_IN_FLIGHT', { default: 32, min: 1, max: 1024 }),
      breaker: {
        failures: env.int('INBOX_WORKER_BREAKER_FAILURES', { default: 5, min: 1, max: 1000 }),
        cooldownMs: env.durationMs('INBOX_WORKER_BREAKER_COOLDOWN', {
          default: '30s',
          min: '10ms',
          max: '1h',
        }),
        maxCooldownMs: env.durationMs('INBOX_WORKER_BREAKER_MAX_COOLDOWN', {
          default: '10m',
          min: '10ms',
          max: '24h',
        }),
      },
      // after the gateway's 8088, the inbox's 8089 and the operator's 8090 in local mode
      port: env.int('INBOX_WORKER_PORT', { default: 8091, min: 0, max: 65_535 }),
      profiles: readProfileListener(env, { host: 'INBOX_DEBUG_HOST', port: 'INBOX_WORKER_DEBUG_PORT' }),
    },
    egressAllowPrivate: env.bool('INBOX_EGRESS_ALLOW_PRIVATE', { default: false }),
    accounts: {
      sessionKeys,
      cookieName: env.str('INBOX_SESSION_COOKIE', { default: DEFAULT_SESSION_COOKIE }),
      ttlSeconds: Math.round(
        env.durationMs('INBOX_SESSION_TTL', { default: '24h', min: '1s', max: '720h' }) / 1000,
      ),
      secureCookie: env.oneOf('INBOX_COOKIE_SECURE', ['auto', 'always', 'never'], { default: 'auto' }),
    },
    search: {
      maxScan: env.int('INBOX_SEARCH_MAX_SCAN', { default: 1000, min: 100, max: 100_000 }),
      maxExport: env.int('INBOX_EXPORT_MAX_REQUESTS', { default: 10_000, min: 1, max: 100_000 }),
      maxImportBytes: env.int('INBOX_IMPORT_MAX_BYTES', {
        default: 16 * 1024 ** 2,
        min: 1024,
        max: 1024 ** 3,
      }),
    },
    webDir: env.str('INBOX_WEB_DIR', { default: fileURLToPath(new URL('../web/dist', import.meta.url)) }),
    log: readLogOptions(env, 'info'),
    tracing: readTracingSettings(env, { serviceName: TRACING_SERVICE_NAMES[role] }),
    profiles: readProfileListener(env, { host: 'INBOX_DEBUG_HOST', port: 'INBOX_DEBUG_PORT' }),
  };
  // a live stream is quiet between heartbeats: closed as idle if they are further apart
  if (settings.sse.heartbeatMs >= settings.timeouts.idleMs) {
    env.problem(
      'INBOX_SSE_HEARTBEAT: must be shorter than INBOX_IDLE_TIMEOUT, or live streams are closed as idle',
    );
  }
  if (settings.worker.breaker.maxCooldownMs < settings.worker.breaker.cooldownMs) {
    env.problem('INBOX_WORKER_BREAKER_MAX_COOLDOWN: must be at least INBOX_WORKER_BREAKER_COOLDOWN');
  }
  env.finish();
  return deepFreeze(settings);
}

/** The settings of the forwarding worker's process (`worker-main.ts`). */
export function loadWorkerSettings(source: EnvSource = process.env): Readonly<Settings> {
  return loadSettings(source, 'worker');
}

/** Just the log settings, bad values replaced by defaults: how to report that the other settings are bad. */
export function loadLogSettings(source: EnvSource = process.env): Settings['log'] {
  return readLogOptions(createEnvReader(source), 'info');
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.search === '' && u.hash === '';
  } catch {
    return false;
  }
}
