import { hostname } from 'node:os';
import {
  createEnvReader,
  deepFreeze,
  readLogOptions,
  readProfileListener,
  readTracingSettings,
  type EnvReader,
  type EnvSource,
  type LogFormat,
  type LogLevel,
  type ProfileListener,
  type TracingSettings,
} from '@portcullis/kit';
import { readShadowReportSettings, type ShadowReportSettings } from './shadow-report/settings.js';

export interface Settings {
  source: 'kubernetes' | 'directory';
  /** Directory mode: where the manifests are (searched recursively). */
  manifestsDir: string;
  /** Kubernetes mode: a kubeconfig file; empty means in-cluster, then `~/.kube/config`. */
  kubeconfig: string;
  /** Where the Lease and the keys Secret live. */
  namespace: string;
  /** Namespace to watch; empty for all. */
  watchNamespace: string;
  /** This replica's name in the Lease. */
  identity: string;
  xds: { host: string; port: number; tls: { cert: string; key: string; clientCa: string } };
  metrics: { host: string; port: number };
  health: { host: string; port: number };
  leaderElection: {
    enabled: boolean;
    leaseName: string;
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  keysSecretName: string;
  /** Kubernetes mode: how often the Secrets that InboxEndpoints name are read again (a rotated secret). */
  secretRefreshMs: number;
  /** The rate-limit domain whose rules are generated from ApiRoute rate limits; RateLimitConfigs may not use it. */
  gatewayRateLimitDomain: string;
  /**
   * Services handed out over xDS for client-side balancing (`xds:///<name>`): in directory mode fixed
   * addresses, in Kubernetes mode a Service and the name of its gRPC port, read from EndpointSlices.
   */
  discovery: {
    endpoints: Readonly<Record<string, ReadonlyArray<{ address: string; port: number }>>>;
    services: Readonly<Record<string, { service: string; portName: string }>>;
  };
  /** `OPERATOR_SHADOW_REPORT_*`: the per-rule hits written into each RateLimitConfig's status. */
  shadowReport: ShadowReportSettings;
  log: { level: LogLevel; format: LogFormat };
  /** `TRACING_*`: the OpenTelemetry SDK `main.ts` registers. */
  tracing: TracingSettings;
  /** `OPERATOR_DEBUG_*`: `/debug/pprof/` on a port of its own, not the metrics port; off (undefined) by default. */
  profiles: ProfileListener | undefined;
}

/** Just the log settings, bad values replaced by defaults: how to report that the other settings are bad. */
export function loadLogSettings(source: EnvSource = process.env): Settings['log'] {
  return readLogOptions(createEnvReader(source), 'info');
}

export function loadSettings(source: EnvSource = process.env): Readonly<Settings> {
  const env = createEnvReader(source);
  const kind = env.oneOf('OPERATOR_SOURCE', ['kubernetes', 'directory'], { default: 'kubernetes' });
  const manifestsDir = env.str('OPERATOR_MANIFESTS_DIR', { default: 'examples/resources' });
  const port = (name: string, fallback: number): number =>
    env.int(name, { default: fallback, min: 0, max: 65_535 });
  const settings: Settings = {
    source: kind,
    manifestsDir,
    kubeconfig: env.str('KUBECONFIG'),
    namespace: env.str('OPERATOR_NAMESPACE', { default: 'portcullis-system', alias: 'POD_NAMESPACE' }),
    watchNamespace: env.str('OPERATOR_WATCH_NAMESPACE'),
    identity: env.str('POD_NAME', { default: hostname() }),
    xds: {
      host: env.str('XDS_HOST', { default: '0.0.0.0' }),
      port: port('XDS_PORT', 18000),
      tls: {
        cert: env.str('XDS_TLS_CERT'),
        key: env.str('XDS_TLS_KEY'),
        clientCa: env.str('XDS_TLS_CLIENT_CACERT'),
      },
    },
    metrics: { host: env.str('METRICS_HOST', { default: '0.0.0.0' }), port: port('METRICS_PORT', 9090) },
    health: { host: env.str('HEALTH_HOST', { default: '0.0.0.0' }), port: port('HEALTH_PORT', 8090) },
    leaderElection: {
      enabled: env.bool('LEADER_ELECTION', { default: true }),
      leaseName: env.str('LEADER_ELECTION_LEASE', { default: 'portcullis-operator' }),
      leaseDurationMs: env.durationMs('LEADER_ELECTION_LEASE_DURATION', {
        default: '15s',
        min: '1s',
        max: '1h',
      }),
      renewDeadlineMs: env.durationMs('LEADER_ELECTION_RENEW_DEADLINE', {
        default: '10s',
        min: '100ms',
        max: '1h',
      }),
      retryPeriodMs: env.durationMs('LEADER_ELECTION_RETRY_PERIOD', {
        default: '2s',
        min: '10ms',
        max: '1h',
      }),
    },
    keysSecretName: env.str('OPERATOR_KEYS_SECRET', { default: 'portcullis-keys' }),
    secretRefreshMs: env.durationMs('OPERATOR_SECRET_REFRESH', { default: '30s', min: '100ms', max: '1h' }),
    gatewayRateLimitDomain: env.str('OPERATOR_GATEWAY_RATELIMIT_DOMAIN', { default: 'gateway' }),
    discovery: {
      endpoints: readEndpoints(
        env,
        env.list('OPERATOR_SERVICE_ENDPOINTS', { default: ['ratelimit=127.0.0.1:8081'] }),
      ),
      services: readServices(
        env,
        env.list('OPERATOR_DISCOVERY_SERVICES', { default: ['ratelimit=portcullis-ratelimit:grpc'] }),
      ),
    },
    shadowReport: readShadowReportSettings(env),
    log: readLogOptions(env, 'info'),
    tracing: readTracingSettings(env, { serviceName: 'portcullis-operator' }),
    profiles: readProfileListener(env, { host: 'OPERATOR_DEBUG_HOST', port: 'OPERATOR_DEBUG_PORT' }),
  };
  const le = settings.leaderElection;
  if (le.renewDeadlineMs >= le.leaseDurationMs)
    env.problem('LEADER_ELECTION_RENEW_DEADLINE must be shorter than LEADER_ELECTION_LEASE_DURATION');
  if (le.retryPeriodMs >= le.renewDeadlineMs)
    env.problem('LEADER_ELECTION_RETRY_PERIOD must be shorter than LEADER_ELECTION_RENEW_DEADLINE');
  const tls = settings.xds.tls;
  if ((tls.cert === '') !== (tls.key === ''))
    env.problem('XDS_TLS_CERT and XDS_TLS_KEY are set together or not at all');
  const shadow = settings.shadowReport;
  if (
    kind === 'kubernetes' &&
    shadow.intervalMs > 0 &&
    shadow.urls.length === 0 &&
    !settings.discovery.services[shadow.endpoints.name]
  )
    env.problem(
      `OPERATOR_SHADOW_REPORT_PORT: "${shadow.endpoints.name}" is not a name in OPERATOR_DISCOVERY_SERVICES`,
    );
  env.finish();
  return deepFreeze(settings);
}

/** `name=host:port` items (one per address; a name may repeat). */
function readEndpoints(env: EnvReader, items: readonly string[]): Settings['discovery']['endpoints'] {
  const out: Record<string, Array<{ address: string; port: number }>> = {};
  for (const item of items) {
    const m = /^([a-z0-9.-]+)=(.+):(\d+)$/.exec(item);
    const port = Number(m?.[3]);
    if (!m?.[1] || !m[2] || !(port > 0 && port < 65_536)) {
      env.problem(`OPERATOR_SERVICE_ENDPOINTS: "${item}" is not name=host:port`);
      continue;
    }
    out[m[1]] = [...(out[m[1]] ?? []), { address: m[2], port }];
  }
  return out;
}

/** `name=service:portName` items. */
function readServices(env: EnvReader, items: readonly string[]): Settings['discovery']['services'] {
  const out: Record<string, { service: string; portName: string }> = {};
  for (const item of items) {
    const m = /^([a-z0-9.-]+)=([a-z0-9-]+):([a-z0-9-]+)$/.exec(item);
    if (!m?.[1] || !m[2] || !m[3])
      env.problem(`OPERATOR_DISCOVERY_SERVICES: "${item}" is not name=service:portName`);
    else out[m[1]] = { service: m[2], portName: m[3] };
  }
  return out;
}
