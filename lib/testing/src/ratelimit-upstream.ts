import { rm } from 'node:fs/promises';
import { spawnLogged } from './logged-process.js';
import { peerPath } from './peers.js';
import { rateLimitHealth } from './ratelimit-process.js';
import { createRuntimeRoot, loopbackServers, replaceRuntimeFile, type ServicePorts } from './service-env.js';
import { isDefined, waitFor, waitUntil } from './wait.js';

// The upstream Envoy rate-limit service (github.com/envoyproxy/ratelimit, src/service_cmd, built by
// `npm run peers`) as a child process: the reference our service is compared with. Its settings are its own
// env names (src/settings/settings.go); only the defaults below differ from upstream's.

export interface UpstreamRateLimitOptions {
  /**
   * Upstream env names, added to or overriding the defaults. A backend is required: `REDIS_URL` (host:port;
   * REDIS_SOCKET_TYPE is tcp here) or `BACKEND_TYPE=memcache` with `MEMCACHE_HOST_PORT`.
   */
  env: Record<string, string>;
  /** Files (name → YAML) in `<RUNTIME_ROOT>/config`; with `CONFIG_TYPE=GRPC_XDS_SOTW` nothing reads them. */
  files?: Record<string, string>;
  /** How long to wait for `/healthcheck` to answer OK: it opens no port before a first config. */
  startTimeoutMs?: number;
}

/** One line of upstream's log (`LOG_FORMAT=json`): logrus fields `@message`, `level`, `@timestamp`. */
export interface UpstreamLogLine {
  '@message': string;
  level: string;
  [field: string]: unknown;
}

export interface UpstreamRateLimit {
  /** Its process id, e.g. to read its CPU time from `/proc`. */
  pid: number;
  /** Whether it has exited (it should not, before `stop`). */
  isExited(): boolean;
  ports: ServicePorts;
  /** `127.0.0.1:<grpc port>`, the form of client_cmd's `-dial_string` and of gRPC targets. */
  grpcAddress: string;
  /** `RUNTIME_ROOT`: the files are in its `config` folder. */
  root: string;
  /** From spawn to `/healthcheck` answering OK, in ms. */
  startupMs: number;
  /** Replaces (or adds) one config file in one rename; upstream's runtime watcher reloads it. */
  writeConfigFile(name: string, yaml: string): Promise<void>;
  /** Its JSON log lines so far (other output, such as the stdout stats sink, is left out). */
  logLines(): UpstreamLogLine[];
  /** Waits for a log line whose `@message` matches; throws with the output after `timeoutMs`. */
  waitForLog(message: RegExp, timeoutMs?: number): Promise<UpstreamLogLine>;
  /** Everything it wrote so far. */
  output(): string;
  /** Stops it (SIGTERM) and removes the runtime root. */
  stop(): Promise<void>;
}

function parseLogLine(line: string): UpstreamLogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<UpstreamLogLine>;
    return typeof parsed['@message'] === 'string' ? (parsed as UpstreamLogLine) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `ratelimit-upstream` on free loopback ports, logging JSON at LOG_LEVEL info, statistics to its
 * stdout sink (USE_STATSD=false: no statsd to send to), the runtime root watched as upstream does by
 * default; resolves once `/healthcheck` answers OK.
 */
export async function startUpstreamRateLimit(opts: UpstreamRateLimitOptions): Promise<UpstreamRateLimit> {
  const env = opts.env;
  if (!env.REDIS_URL && !(env.BACKEND_TYPE === 'memcache' && env.MEMCACHE_HOST_PORT))
    throw new Error(
      'startUpstreamRateLimit: env needs REDIS_URL, or BACKEND_TYPE=memcache and MEMCACHE_HOST_PORT',
    );
  const root = await createRuntimeRoot('ratelimit-upstream-', opts.files ?? {});
  const servers = await loopbackServers();
  const started = Date.now();
  const p = spawnLogged(peerPath('ratelimit-upstream'), [], {
    ...servers.env,
    USE_STATSD: 'false',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    REDIS_SOCKET_TYPE: 'tcp',
    RUNTIME_ROOT: root,
    RUNTIME_SUBDIRECTORY: '',
    RUNTIME_WATCH_ROOT: 'false',
    ...env,
  });
  const lines: UpstreamLogLine[] = [];
  const collect = (text: string): void => {
    const line = parseLogLine(text);
    if (line) lines.push(line);
  };
  p.onStderrLine(collect);
  const stop = async (): Promise<void> => {
    await p.stop();
    await rm(root, { recursive: true, force: true });
  };
  const health = (): Promise<number> => rateLimitHealth(servers.ports.http);
  try {
    await waitUntil(async () => {
      if (p.child.exitCode !== null) throw new Error(`ratelimit-upstream exited: ${p.output()}`);
      return (await health()) === 200;
    }, opts.startTimeoutMs ?? 30_000);
  } catch (err: unknown) {
    await stop();
    throw new Error(`ratelimit-upstream did not become healthy: ${p.output().slice(-3000)}`, { cause: err });
  }
  const pid = p.child.pid;
  if (pid === undefined) {
    await stop();
    throw new Error(`ratelimit-upstream answered without a process id: ${p.output()}`);
  }
  return {
    pid,
    isExited: () => p.child.exitCode !== null || p.child.signalCode !== null,
    ports: servers.ports,
    grpcAddress: `127.0.0.1:${servers.ports.grpc}`,
    root,
    startupMs: Date.now() - started,
    writeConfigFile: (name, yaml) => replaceRuntimeFile(root, name, yaml),
    logLines: () => lines.slice(),
    waitForLog: (message, timeoutMs = 15_000) =>
      waitFor(() => lines.find((l) => message.test(l['@message'])), isDefined, {
        timeoutMs,
        what: `an upstream log line matching ${message}`,
        context: () => p.output().slice(-3000),
      }),
    output: () => p.output(),
    stop,
  };
}
