import { DEFAULT_SESSION_COOKIE, type SecureCookieMode } from '@portcullis/accounts';
import {
  createEnvReader,
  deepFreeze,
  DEFAULT_MAX_JSON_DEPTH,
  readHttpTimeouts,
  readLogOptions,
  readTrustProxy,
  type EnvSource,
  type HttpTimeouts,
  type LogFormat,
  type LogLevel,
  type TrustProxy,
} from '@portcullis/kit';
import { readRateLimitTls, type RateLimitTlsNames } from '@portcullis/ratelimit-client';
import type { ClientTlsOptions } from '@portcullis/xds';
import { GATEWAY_REDIS_ENV, readRedisConnection, type RedisConnection } from '@portcullis/redis';

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
  session: {
    keys: string[];
    ttlSeconds: number;
    cookieName: string;
    secureCookie: SecureCookieMode;
  };
  /** Where generated keys are kept when none are given (local mode). */
  stateDir: string;
  corsOrigins: string[];
  /** `<base>/openapi.json`, the document of the live routes: open to anyone, to callers with credentials, or off. */
  openapi: OpenApiAccess;
  /** Accounts, sessions and the token denylist; empty keeps them in memory (local mode). */
  /** Redis for accounts and sessions (lib/redis's `GATEWAY_REDIS_ENV` names); empty URL: memory (local mode). */
  redis: RedisConnection;
  xds: { serverUrl: string; nodeId: string; retryIntervalMs: number };
  ratelimit: {
    /** Empty (`GATEWAY_RATELIMIT_URL=none`): no ratelimit service; the in-process fallback limits answer every call. */
    target: string;
    xdsServerUri: string;
    domain: string;
    /** Sign-in (`POST /auth`) is asked of this domain, which the operator does not generate: a RateLimitConfig sets its limits. */
    authDomain: string;
    failureMode: 'allow' | 'deny';
    timeoutMs: number;
    /** `GATEWAY_RATELIMIT_TLS*`: TLS (or mTLS) to the service; plaintext when undefined. */
    tls: ClientTlsOptions | undefined;
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
  maxBodyBytes: number;
  /** How deep a JSON body may nest arrays and objects (`{}` is 1). */
  maxBodyDepth: number;
  timeouts: HttpTimeouts;
  /** After SIGTERM, how long `/readyz` fails before the server stops accepting (load balancers catch up). */
  shutdownDelayMs: number;
  /** Peers whose `X-Forwarded-Proto` (so `Secure` cookies) and `X-Forwarded-For` count. */
  trustProxy: TrustProxy;
  log: { level: LogLevel; format: LogFormat };
}

const RATELIMIT_TLS_NAMES: RateLimitTlsNames = {
  enabled: 'GATEWAY_RATELIMIT_TLS',
  caCert: 'GATEWAY_RATELIMIT_TLS_CACERT',
  clientCert: 'GATEWAY_RATELIMIT_TLS_CLIENT_CERT',
  clientKey: 'GATEWAY_RATELIMIT_TLS_CLIENT_KEY',
  serverNameOverride: 'GATEWAY_RATELIMIT_TLS_SAN',
};

/** Reads every setting once; a bad value, or one out of its range, stops start-up naming the variable. */
export function loadSettings(source: EnvSource = process.env): Readonly<Settings> {
  const env = createEnvReader(source);
  const basePath = env.str('GATEWAY_BASE_PATH', { default: 'api' }).replace(/^\/+|\/+$/g, '') || 'api';
  if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(basePath)) {
    env.problem(`GATEWAY_BASE_PATH="${basePath}": expected segments of a-z, 0-9 and -, separated by /`);
  }
  const jwtSecret = env.str('GATEWAY_JWT_SECRET');
  if (jwtSecret !== '' && Buffer.byteLength(jwtSecret) < 32)
    env.problem('GATEWAY_JWT_SECRET: at least 32 bytes');
  const ratelimitTarget = env.str('GATEWAY_RATELIMIT_URL', { default: 'localhost:8081' });
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
      issuer: env.str('GATEWAY_JWT_ISSUER', { default: 'portcullis-gateway' }),
      audience: env.str('GATEWAY_JWT_AUDIENCE', { default: 'portcullis' }),
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
    corsOrigins: env.list('GATEWAY_CORS_ORIGINS'),
    openapi: env.oneOf('GATEWAY_OPENAPI', OPENAPI_ACCESS, { default: 'public' }),
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
      // an empty variable reads as unset (the default), so "no service" needs a word of its own
      target: ratelimitTarget === 'none' ? '' : ratelimitTarget,
      xdsServerUri: env.str('GATEWAY_RATELIMIT_XDS_SERVER', { default: env.str('GATEWAY_XDS_SERVER_URL') }),
      domain: env.str('GATEWAY_RATELIMIT_DOMAIN', { default: 'gateway' }),
      authDomain: env.str('GATEWAY_RATELIMIT_AUTH_DOMAIN', { default: 'gateway-auth' }),
      failureMode: env.oneOf('GATEWAY_RATELIMIT_FAILURE_MODE', ['allow', 'deny'], { default: 'allow' }),
      timeoutMs: env.durationMs('GATEWAY_RATELIMIT_TIMEOUT', { default: '200ms', min: '1ms', max: '1m' }),
      tls: readRateLimitTls(env, RATELIMIT_TLS_NAMES),
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
    maxBodyBytes: env.int('GATEWAY_MAX_BODY_BYTES', { default: 1_048_576, min: 1, max: 1024 ** 3 }),
    maxBodyDepth: env.int('GATEWAY_MAX_BODY_DEPTH', { default: DEFAULT_MAX_JSON_DEPTH, min: 1, max: 1024 }),
    timeouts: readHttpTimeouts(env, {
      requestMs: 'GATEWAY_REQUEST_TIMEOUT',
      headersMs: 'GATEWAY_HEADERS_TIMEOUT',
      idleMs: 'GATEWAY_IDLE_TIMEOUT',
    }),
    shutdownDelayMs: env.durationMs('GATEWAY_SHUTDOWN_DELAY', { default: '5s', min: '0s', max: '5m' }),
    trustProxy: readTrustProxy(env, 'GATEWAY_TRUST_PROXY'),
    log: readLogOptions(env, 'info'),
  };
  if (settings.auth === 'session' && settings.corsOrigins.includes('*')) {
    env.problem('GATEWAY_CORS_ORIGINS="*": credentialed session mode needs the allowed origins listed');
  }
  env.finish();
  return deepFreeze(settings);
}

/** Just the log settings, bad values replaced by defaults: how to report that the other settings are bad. */
export function loadLogSettings(source: EnvSource = process.env): Settings['log'] {
  return readLogOptions(createEnvReader(source), 'info');
}
