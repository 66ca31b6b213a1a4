import { fileURLToPath } from 'node:url';
import {
  createEnvReader,
  deepFreeze,
  readLogOptions,
  readProfileListener,
  readTracingSettings,
  type EnvSource,
  type LogFormat,
  type LogLevel,
  type ProfileListener,
  type TracingSettings,
} from '@portcullis/kit';
import { readAccessSettings, type AccessSettings } from './settings/access-settings.js';
import { readAccountSettings, type AccountSettings } from './settings/account-settings.js';
import { readBoundsSettings, type BoundsSettings } from './settings/bounds-settings.js';
import { readHttpSettings, type HttpSettings } from './settings/http-settings.js';
import { readRateLimitSettings, type RateLimitSettings } from './settings/rate-limit-settings.js';
import { readSearchSettings, type SearchSettings } from './settings/search-settings.js';
import { readSseSettings, type SseSettings } from './settings/sse-settings.js';
import { readStoreSettings, type StoreSettings } from './settings/store-settings.js';
import { readWorkerSettings, type WorkerSettings } from './settings/worker-settings.js';

export interface Settings extends AccessSettings, HttpSettings, StoreSettings, BoundsSettings {
  xds: { serverUrl: string; nodeId: string; retryIntervalMs: number };
  sse: SseSettings;
  ratelimit: RateLimitSettings;
  worker: WorkerSettings;
  /**
   * Lets forward and replay targets resolve to loopback, private, link-local and metadata addresses (local
   * mode, tests); the forwarder (worker or local) and the inspector's replay both obey it.
   */
  egressAllowPrivate: boolean;
  accounts: AccountSettings;
  search: SearchSettings;
  /** The built inspector (`npm run build:web`): index.html and hashed assets. */
  webDir: string;
  log: { level: LogLevel; format: LogFormat };
  /** `TRACING_*`: the OpenTelemetry SDK each entry point registers. */
  tracing: TracingSettings;
  /** `INBOX_DEBUG_*`: `/debug/pprof/` on a port of its own; off (undefined) by default. */
  profiles: ProfileListener | undefined;
  /**
   * `INBOX_WORKERS`: the HTTP server's worker processes sharing its port; 0: one per CPU the process may use
   * with Redis, 1 with the memory store (its captures live in the process).
   */
  workers: number;
}

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
  const settings: Settings = {
    ...readAccessSettings(env),
    ...readHttpSettings(env),
    ...readStoreSettings(env),
    xds: {
      serverUrl: env.str('INBOX_XDS_SERVER_URL'),
      nodeId: env.str('INBOX_XDS_NODE_ID', { default: 'inbox' }),
      retryIntervalMs: env.durationMs('INBOX_XDS_RETRY_INTERVAL', { default: '3s', min: '10ms', max: '5m' }),
    },
    sse: readSseSettings(env),
    ratelimit: readRateLimitSettings(env),
    ...readBoundsSettings(env),
    worker: readWorkerSettings(env),
    egressAllowPrivate: env.bool('INBOX_EGRESS_ALLOW_PRIVATE', { default: false }),
    accounts: readAccountSettings(env),
    search: readSearchSettings(env),
    webDir: env.str('INBOX_WEB_DIR', { default: fileURLToPath(new URL('../web/dist', import.meta.url)) }),
    log: readLogOptions(env, 'info'),
    tracing: readTracingSettings(env, { serviceName: TRACING_SERVICE_NAMES[role] }),
    profiles: readProfileListener(env, { host: 'INBOX_DEBUG_HOST', port: 'INBOX_DEBUG_PORT' }),
    workers: env.int('INBOX_WORKERS', { default: 0, min: 0, max: 64 }),
  };
  if (settings.workers > 1 && settings.redis.url === '') {
    env.problem(
      `INBOX_WORKERS=${settings.workers}: without INBOX_REDIS_URL the captures live in the process, ` +
        'so more than one worker would split them',
    );
  }
  // a live stream is quiet between heartbeats: closed as idle if they are further apart
  if (settings.sse.heartbeatMs >= settings.timeouts.idleMs) {
    env.problem(
      'INBOX_SSE_HEARTBEAT: must be shorter than INBOX_IDLE_TIMEOUT, or live streams are closed as idle',
    );
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
