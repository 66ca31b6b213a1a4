import { DEFAULT_SESSION_COOKIE, type SecureCookieMode } from '@portcullis/accounts';
import {
  createEnvReader,
  deepFreeze,
  DEFAULT_MAX_JSON_DEPTH,
  readHttpTimeouts,
  readLogOptions,
  readProfileListener,
  readTracingSettings,
  readTrustProxy,
  type EnvReader,
  type EnvSource,
  type HttpTimeouts,
  type LogFormat,
  type LogLevel,
  type ProfileListener,
  type TracingSettings,
  type TrustProxy,
} from '@portcullis/kit';
import {
  GATEWAY_RATELIMIT_ENV,
  readRateLimitClientSettings,
  type RateLimitClientSettings,
} from '@portcullis/ratelimit-client';
import { parseIdpIssuers, type IdpIssuer } from './auth/idp-issuers.js';
import { REFRESH_MODES, type RefreshMode } from './auth/refresh-tokens.js';
import { GATEWAY_REDIS_ENV, readRedisConnection, type RedisConnection } from '@portcullis/redis';

/** As the inbox's `INBOX_ADMIN_TOKEN`. */
export const MIN_ADMIN_TOKEN_CHARS = 32;
export const AUTH_MODES = ['none', 'session', 'jwt'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
/** `GATEWAY_OPENAPI`: who may read `<base>/openapi.json`, or `off` (no document; the path is a route path). */
export const OPENAPI_ACCESS = ['public', 'auth', 'off'] as const;
export type OpenApiAccess = (typeof OPENAPI_ACCESS)[number];

export interface Settings {
  host: string;
  port: number;
  /** Without slashes: `api`, `cms/api`. */
  basePath: string;
  auth: AuthMode;
  jwt: { secret: string; ttlSeconds: number; issuer: string; audience: string };
  /** Identity providers whose tokens jwt mode accepts besides its own, and how their keys are fetched. */
  idp: {
    issuers: IdpIssuer[];
    jwksTimeoutMs: number;
    /** The bounds a JWKS response's `max-age` is held within. */
    jwksCacheMinMs: number;
    jwksCacheMaxMs: number;
    /** At most one JWKS fetch per issuer per this many ms (an unknown `kid`, stale keys, a retry). */
    jwksRefetchIntervalMs: number;
  };
  /** Verified tokens kept (by hash, until their `exp`) so each is checked once; 0 keeps none. */
  tokenCacheSize: number;
  /** jwt mode: refresh tokens with sign-in (`off`, in the body, or in a cookie) and how long each lives. */
  refresh: { mode: RefreshMode; ttlSeconds: number };
  session: {
    keys: string[];
    ttlSeconds: number;
    cookieName: string;
    secureCookie: SecureCookieMode;
  };
  /** Where generated keys are kept when none are given (local mode). */
  stateDir: string;
  /** Without Redis: the JSON file of the accounts (local mode); empty keeps them in memory. */
  accountsFile: string;
  corsOrigins: string[];
  /** `<base>/openapi.json`, the document of the live routes: open to anyone, to callers with credentials, or off. */
  openapi: OpenApiAccess;
  /** The request header an application's API key comes in (lower case). */
  apiKeyHeader: string;
  /**
   * `GATEWAY_ADMIN_TOKEN`, the Bearer token of the admin API: `/admin/...` (applications, keys, user roles,
   * users' sessions); empty: no admin API (`404 ADMIN_DISABLED`).
   */
  adminToken: string;
  /** Accounts, sessions and the token denylist; empty keeps them in memory (local mode). */
  /** Redis for accounts and sessions (lib/redis's `GATEWAY_REDIS_ENV` names); empty URL: memory (local mode). */
  redis: RedisConnection;
  xds: { serverUrl: string; nodeId: string; retryIntervalMs: number };
  /**
   * `GATEWAY_RATELIMIT_*` (lib/ratelimit-client's `GATEWAY_RATELIMIT_ENV` names): an empty `target`
   * (`GATEWAY_RATELIMIT_URL=none`) is no ratelimit service, the in-process fallback limits answering every call.
   */
  ratelimit: RateLimitClientSettings & {
    xdsServerUri: string;
    /** Sign-in (`POST /auth`) is asked of this domain, which the operator does not generate: a RateLimitConfig sets its limits. */
    authDomain: string;
    /**
     * Sign-in limits counted in this process when there is no service, or a call to it fails and the failure
     * mode is `allow`; per minute, 0 for none.
     */
    fallback: { signInPerAddressPerMinute: number; signInPerUsernamePerMinute: number; maxKeys: number };
  };
  /** scrypt hashes and verifications at once, and waiting; past both, sign-in answers 503. */
  passwordChecks: { maxConcurrent: number; maxQueued: number };
  /** Host of a backend Service; `{service}` and `{namespace}` are replaced. */
  backendHostTemplate: string;
  /** Keep-alive connections per upstream Service (host and port), per process; more requests wait for one. */
  upstreamMaxConnections: number;
  maxBodyBytes: number;
  /** How deep a JSON body may nest arrays and objects (`{}` is 1). */
  maxBodyDepth: number;
  timeouts: HttpTimeouts;
  /**
   * `GATEWAY_WORKERS`: processes serving the port; 0 = the default (the CPUs this process may use, 1 without
   * Redis), resolved at start (kit's `runMainWithWorkers`).
   */
  workers: number;
  /** After SIGTERM, how long `/readyz` fails before the server stops accepting (load balancers catch up). */
  shutdownDelayMs: number;
  /** Peers whose `X-Forwarded-Proto` (so `Secure` cookies) and `X-Forwarded-For` count. */
  trustProxy: TrustProxy;
  /** `GATEWAY_TLS_*`: HTTPS (HTTP/2, and HTTP/1.1 for clients without it) on the port; plain HTTP when undefined. */
  tls: ListenerTls | undefined;
  log: { level: LogLevel; format: LogFormat };
  /** `TRACING_*`: the OpenTelemetry SDK `main.ts` registers. */
  tracing: TracingSettings;
  /** `GATEWAY_DEBUG_*`: `/debug/pprof/` on a port of its own; off (undefined) by default. */
  profiles: ProfileListener | undefined;
}

export interface ListenerTls {
  /** PEM files: the certificate (its chain after it) and its key. */
  cert: string;
  key: string;
  /** How often the files are read again for renewed certificates; 0 = never. */
  reloadIntervalMs: number;
}

/** Reads every setting once; a bad value, or one out of its range, stops start-up naming the variable. */
export function loadSettings(source: EnvSource = process.env): Readonly<Settings> {
  const env = createEnvReader(source);
  const basePath = env.str('GATEWAY_BASE_PATH', { default: 'api' }).replace(/^\/+|(?<!\/)\/+$/g, '') || 'api';
  if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(basePath)) {
    env.problem(`GATEWAY_BASE_PATH="${basePath}": expected segments of a-z, 0-9 and -, separated by /`);
  }
  const jwtSecret = env.str('GATEWAY_JWT_SECRET');
  if (jwtSecret !== '' && Buffer.byteLength(jwtSecret) < 32)
    env.problem('GATEWAY_JWT_SECRET: at least 32 bytes');
  const jwtIssuer = env.str('GATEWAY_JWT_ISSUER', { default: 'portcullis-gateway' });
  const issuersJson = env.str('GATEWAY_JWT_ISSUERS');
  const idp = issuersJson === '' ? undefined : parseIdpIssuers('GATEWAY_JWT_ISSUERS', issuersJson, jwtIssuer);
  for (const problem of idp?.problems ?? []) env.problem(problem);
  const settings: Settings = {
    host: env.str('GATEWAY_HOST', { default: '0.0.0.0' }),
    port: env.int('GATEWAY_PORT', { default: 8088, min: 0, max: 65_535 }),
    basePath,
    auth: env.oneOf('GATEWAY_AUTH', AUTH_MODES, { default: 'none' }),
    jwt: {
      secret: jwtSecret,
      ttlSeconds: Math.round(
        env.durationMs('GATEWAY_JWT_TTL', { default: '24h', min: '1s', max: '720h' }) / 1000,
      ),
      issuer: jwtIssuer,
      audience: env.str('GATEWAY_JWT_AUDIENCE', { default: 'portcullis' }),
    },
    idp: {
      issuers: idp?.issuers ?? [],
      jwksTimeoutMs: env.durationMs('GATEWAY_JWKS_TIMEOUT', { default: '5s', min: '100ms', max: '1m' }),
      jwksCacheMinMs: env.durationMs('GATEWAY_JWKS_CACHE_MIN', { default: '1m', min: '1s', max: '24h' }),
      jwksCacheMaxMs: env.durationMs('GATEWAY_JWKS_CACHE_MAX', { default: '1h', min: '1s', max: '24h' }),
      jwksRefetchIntervalMs: env.durationMs('GATEWAY_JWKS_REFETCH_INTERVAL', {
        default: '30s',
        min: '1s',
        max: '1h',
      }),
    },
    tokenCacheSize: env.int('GATEWAY_JWT_CACHE_SIZE', { default: 10_000, min: 0, max: 1_000_000 }),
    refresh: {
      mode: env.oneOf('GATEWAY_REFRESH_TOKENS', REFRESH_MODES, { default: 'off' }),
      ttlSeconds: Math.round(
        env.durationMs('GATEWAY_REFRESH_TTL', { default: '720h', min: '1m', max: '2160h' }) / 1000,
      ),
    },
    session: {
      keys: env.list('GATEWAY_SESSION_KEYS'),
      ttlSeconds: Math.round(
        env.durationMs('GATEWAY_SESSION_TTL', { default: '24h', min: '1s', max: '720h' }) / 1000,
      ),
      cookieName: env.str('GATEWAY_SESSION_COOKIE', { default: DEFAULT_SESSION_COOKIE }),
      secureCookie: env.oneOf('GATEWAY_COOKIE_SECURE', ['auto', 'always', 'never'], { default: 'auto' }),
    },
    stateDir: env.str('GATEWAY_STATE_DIR', { default: '.portcullis' }),
    accountsFile: env.str('GATEWAY_ACCOUNTS_FILE'),
    corsOrigins: env.list('GATEWAY_CORS_ORIGINS'),
    openapi: env.oneOf('GATEWAY_OPENAPI', OPENAPI_ACCESS, { default: 'public' }),
    apiKeyHeader: env.str('GATEWAY_API_KEY_HEADER', { default: 'x-api-key' }).toLowerCase(),
    adminToken: env.str('GATEWAY_ADMIN_TOKEN'),
    redis: readRedisConnection(env, GATEWAY_REDIS_ENV, { url: '' }),
    xds: {
      serverUrl: env.str('GATEWAY_XDS_SERVER_URL'),
      nodeId: env.str('GATEWAY_XDS_NODE_ID', { default: 'gateway' }),
      retryIntervalMs: env.durationMs('GATEWAY_XDS_RETRY_INTERVAL', {
        default: '3s',
        min: '10ms',
        max: '5m',
      }),
    },
    ratelimit: {
      ...readRateLimitClientSettings(env, GATEWAY_RATELIMIT_ENV, {
        url: 'localhost:8081',
        domain: 'gateway',
      }),
      xdsServerUri: env.str('GATEWAY_RATELIMIT_XDS_SERVER', { default: env.str('GATEWAY_XDS_SERVER_URL') }),
      authDomain: env.str('GATEWAY_RATELIMIT_AUTH_DOMAIN', { default: 'gateway-auth' }),
      // examples/resources/ratelimit-gateway-auth.yaml's limits, so falling back changes nothing per replica
      fallback: {
        signInPerAddressPerMinute: env.int('GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE', {
          default: 10,
          min: 0,
          max: 1_000_000,
        }),
        signInPerUsernamePerMinute: env.int('GATEWAY_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE', {
          default: 5,
          min: 0,
          max: 1_000_000,
        }),
        maxKeys: env.int('GATEWAY_FALLBACK_MAX_KEYS', { default: 10_000, min: 1, max: 10_000_000 }),
      },
    },
    passwordChecks: {
      maxConcurrent: env.int('GATEWAY_PASSWORD_CHECKS_MAX_CONCURRENT', { default: 2, min: 1, max: 64 }),
      maxQueued: env.int('GATEWAY_PASSWORD_CHECKS_MAX_QUEUED', { default: 8, min: 0, max: 10_000 }),
    },
    backendHostTemplate: env.str('GATEWAY_BACKEND_HOST', {
      default: '{service}.{namespace}.svc.cluster.local',
    }),
    upstreamMaxConnections: env.int('GATEWAY_UPSTREAM_MAX_CONNECTIONS', {
      default: 256,
      min: 1,
      max: 65_536,
    }),
    maxBodyBytes: env.int('GATEWAY_MAX_BODY_BYTES', { default: 1_048_576, min: 1, max: 1024 ** 3 }),
    maxBodyDepth: env.int('GATEWAY_MAX_BODY_DEPTH', { default: DEFAULT_MAX_JSON_DEPTH, min: 1, max: 1024 }),
    timeouts: readHttpTimeouts(env, {
      requestMs: 'GATEWAY_REQUEST_TIMEOUT',
      headersMs: 'GATEWAY_HEADERS_TIMEOUT',
      idleMs: 'GATEWAY_IDLE_TIMEOUT',
    }),
    workers: env.int('GATEWAY_WORKERS', { default: 0, min: 0, max: 64 }),
    shutdownDelayMs: env.durationMs('GATEWAY_SHUTDOWN_DELAY', { default: '5s', min: '0s', max: '5m' }),
    trustProxy: readTrustProxy(env, 'GATEWAY_TRUST_PROXY'),
    tls: readListenerTls(env),
    log: readLogOptions(env, 'info'),
    tracing: readTracingSettings(env, { serviceName: 'portcullis-gateway' }),
    profiles: readProfileListener(env, { host: 'GATEWAY_DEBUG_HOST', port: 'GATEWAY_DEBUG_PORT' }),
  };
  if (settings.idp.issuers.length > 0 && settings.auth !== 'jwt')
    env.problem('GATEWAY_JWT_ISSUERS: set, but GATEWAY_AUTH is not jwt');
  if (settings.refresh.mode !== 'off' && settings.auth !== 'jwt')
    env.problem('GATEWAY_REFRESH_TOKENS: on, but GATEWAY_AUTH is not jwt');
  if (settings.refresh.mode !== 'off' && settings.refresh.ttlSeconds <= settings.jwt.ttlSeconds)
    env.problem('GATEWAY_REFRESH_TTL: not longer than GATEWAY_JWT_TTL');
  if (settings.adminToken !== '' && settings.adminToken.length < MIN_ADMIN_TOKEN_CHARS)
    env.problem(`GATEWAY_ADMIN_TOKEN: at least ${MIN_ADMIN_TOKEN_CHARS} characters`);
  if (settings.idp.jwksCacheMinMs > settings.idp.jwksCacheMaxMs) {
    env.problem('GATEWAY_JWKS_CACHE_MIN: longer than GATEWAY_JWKS_CACHE_MAX');
  }
  if (!/^[a-z0-9-]{1,64}$/.test(settings.apiKeyHeader) || settings.apiKeyHeader === 'authorization')
    env.problem(
      `GATEWAY_API_KEY_HEADER="${settings.apiKeyHeader}": expected a header name (a-z, 0-9, -), not authorization`,
    );
  if (settings.adminToken !== '' && basePath.split('/')[0] === 'admin')
    env.problem("GATEWAY_BASE_PATH: admin is the admin API's path while GATEWAY_ADMIN_TOKEN is set");
  if (settings.auth === 'session' && settings.corsOrigins.includes('*')) {
    env.problem('GATEWAY_CORS_ORIGINS="*": credentialed session mode needs the allowed origins listed');
  }
  if (settings.workers > 1 && settings.redis.url === '') {
    env.problem(
      `GATEWAY_WORKERS=${settings.workers}: without GATEWAY_REDIS_URL accounts, sessions and applications ` +
        'are kept in the process, so more than one worker would split them',
    );
  }
  env.finish();
  return deepFreeze(settings);
}

function readListenerTls(env: EnvReader): ListenerTls | undefined {
  const cert = env.str('GATEWAY_TLS_CERT');
  const key = env.str('GATEWAY_TLS_KEY');
  // the ratelimit's GRPC_SERVER_TLS_RELOAD_INTERVAL, with its default and range
  const reloadIntervalMs = env.durationMs('GATEWAY_TLS_RELOAD_INTERVAL', {
    default: '10s',
    min: '100ms',
    max: '24h',
    zeroMeans: 'never',
  });
  if (cert === '' && key === '') return undefined;
  if (cert === '') env.problem('GATEWAY_TLS_CERT: needed with GATEWAY_TLS_KEY');
  if (key === '') env.problem('GATEWAY_TLS_KEY: needed with GATEWAY_TLS_CERT');
  return { cert, key, reloadIntervalMs };
}

/** Just the log settings, bad values replaced by defaults: how to report that the other settings are bad. */
export function loadLogSettings(source: EnvSource = process.env): Settings['log'] {
  return readLogOptions(createEnvReader(source), 'info');
}
