import { spawnNode, type Child } from '../common/child-process.js';
import type { OnCleanup } from '../common/run-bench.js';
import { waitForHttpOk } from '../common/wait-for-http.js';

const READY_TIMEOUT_MS = 120_000;

export interface OperatorProcess {
  child: Child;
  xdsPort: number;
  metricsUrl: string;
  /** `http://127.0.0.1:<debug port>/debug/pprof` when a debug port was given. */
  profilesUrl: string | undefined;
}

/**
 * The operator with the source `sourceEnv` sets (`OPERATOR_SOURCE` and what it needs), started and ready
 * (`/readyz` answers 200); stopped by `onCleanup`, registered as soon as it is spawned. `nodeFlags`: say,
 * `--cpu-prof`.
 */
export async function startOperator(
  o: {
    sourceEnv: Record<string, string>;
    ports: { xds: number; health: number; metrics: number; debug?: number };
    nodeFlags?: readonly string[];
  },
  onCleanup: OnCleanup,
): Promise<OperatorProcess> {
  const child = spawnNode({
    name: 'operator',
    script: 'operator/src/main.ts',
    ...(o.nodeFlags ? { nodeFlags: o.nodeFlags } : {}),
    env: {
      ...o.sourceEnv,
      XDS_HOST: '127.0.0.1',
      XDS_PORT: String(o.ports.xds),
      HEALTH_HOST: '127.0.0.1',
      HEALTH_PORT: String(o.ports.health),
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(o.ports.metrics),
      ...(o.ports.debug === undefined ? {} : { OPERATOR_DEBUG_PORT: String(o.ports.debug) }),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
  });
  onCleanup(() => child.stop());
  await waitForHttpOk(`http://127.0.0.1:${o.ports.health}/readyz`, child, READY_TIMEOUT_MS);
  return {
    child,
    xdsPort: o.ports.xds,
    metricsUrl: `http://127.0.0.1:${o.ports.metrics}/metrics`,
    profilesUrl: o.ports.debug === undefined ? undefined : `http://127.0.0.1:${o.ports.debug}/debug/pprof`,
  };
}

export interface RateLimitInstance {
  child: Child;
  /** `http://127.0.0.1:<port>`, serving `POST /json` decisions. */
  httpUrl: string;
  /** `http://127.0.0.1:<debug port>`, serving `/stats` and `/rlconfig`. */
  debugUrl: string;
}

/**
 * A rate-limit service taking its rules from the operator over xDS (in-memory counters), started and
 * healthy, though maybe without its first configuration yet; stopped by `onCleanup`, as soon as spawned.
 */
export async function startRateLimit(
  o: { nodeId: string; xdsPort: number; ports: { http: number; grpc: number; debug: number } },
  onCleanup: OnCleanup,
): Promise<RateLimitInstance> {
  const child = spawnNode({
    name: `ratelimit ${o.nodeId}`,
    script: 'services/ratelimit/src/main.ts',
    env: {
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${o.xdsPort}`,
      CONFIG_GRPC_XDS_NODE_ID: o.nodeId,
      CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '200ms',
      BACKEND_TYPE: 'memory',
      FORCE_START_WITHOUT_INITIAL_CONFIG: 'true',
      USE_STATSD: 'false',
      HOST: '127.0.0.1',
      PORT: String(o.ports.http),
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(o.ports.grpc),
      DEBUG_HOST: '127.0.0.1',
      DEBUG_PORT: String(o.ports.debug),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
  });
  onCleanup(() => child.stop());
  await waitForHttpOk(`http://127.0.0.1:${o.ports.http}/healthcheck`, child, READY_TIMEOUT_MS);
  return {
    child,
    httpUrl: `http://127.0.0.1:${o.ports.http}`,
    debugUrl: `http://127.0.0.1:${o.ports.debug}`,
  };
}
