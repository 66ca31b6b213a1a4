import type { KubeConfig } from '@kubernetes/client-node';
import { createMetricsRegistry, createProfileServerPart, startParts, type Logger } from '@portcullis/kit';
import type { SotwServer } from '@portcullis/xds';
import { createHealthServerPart, createMetricsServerPart } from './http-servers.js';
import { loadKubeConfig, reuseConnections } from './kube-config.js';
import { createLeadership } from './leader-election-part.js';
import { createOperatorMetrics } from './metrics.js';
import { createReconcileLoop } from './reconcile/reconcile-loop.js';
import { createShadowReportPart } from './shadow-report/shadow-report-part.js';
import type { Settings } from './settings.js';
import { createSources } from './sources/create-sources.js';
import { createStatusQueue } from './status/status-queue.js';
import { KubernetesStatusSink, LogStatusSink, type StatusSink } from './status/status-writer.js';
import { ResourceStore } from './store.js';
import { countXdsMessages, createXdsServer, createXdsServerPart } from './xds-server.js';

export interface OperatorApp {
  xds: SotwServer;
  store: ResourceStore;
  ports: { readonly xds: number; readonly health: number; readonly metrics: number };
  /** The `/debug/pprof/` port (`OPERATOR_DEBUG_PORT`); undefined when off. */
  profilePort: number | undefined;
  /** Reconciles now (instead of after the debounce) and resolves when statuses are written. */
  reconcileNow(): Promise<void>;
  isLeader(): boolean;
  close(): Promise<void>;
}

/**
 * The operator: source → store → reconcile → xDS snapshot (every replica) and status (the leader only).
 * The xDS server starts only after the source has delivered its first full view, so a restarted operator
 * never hands its clients an empty snapshot.
 */
export async function startOperator(
  settings: Readonly<Settings>,
  deps: { log: Logger; kubeConfig?: KubeConfig },
): Promise<OperatorApp> {
  const { log } = deps;
  const registry = createMetricsRegistry({ component: 'operator' });
  const store = new ResourceStore();
  const xds = createXdsServer(settings.xds, log);
  const metrics = createOperatorMetrics(registry, () => xds.clients().length);
  countXdsMessages(xds, metrics, log);

  const kubeConfig =
    settings.source === 'kubernetes'
      ? reuseConnections(deps.kubeConfig ?? loadKubeConfig(settings.kubeconfig))
      : undefined;
  const sources = createSources({ settings, kubeConfig, store, log });
  const leadership = createLeadership({
    settings,
    kubeConfig,
    metrics,
    log,
    onStartedLeading: () => void loop.reconcileNow(),
  });
  const statusSink: StatusSink = kubeConfig
    ? new KubernetesStatusSink({ kubeConfig, log, writes: metrics.statusWrites })
    : new LogStatusSink(log.child({ component: 'status' }));
  const statuses = createStatusQueue({
    sink: statusSink,
    isLeader: leadership.isLeader,
    pending: metrics.statusWritesPending,
    log,
  });
  const loop = createReconcileLoop({
    store,
    secretReader: sources.secretReader,
    endpoints: sources.endpoints,
    xds,
    gatewayDomain: settings.gatewayRateLimitDomain,
    statusSink,
    writeStatuses: (outcomes) => statuses.write(outcomes),
    metrics,
    log,
  });

  const profiles = createProfileServerPart(settings.profiles, log);
  const health = createHealthServerPart({
    listener: settings.health,
    isReady: () => sources.resources.isSynced(),
    isLeader: leadership.isLeader,
    log,
  });
  const metricsServer = createMetricsServerPart({ listener: settings.metrics, registry, log });
  const shadowReport = createShadowReportPart({
    settings: settings.shadowReport,
    kubeConfig,
    endpoints: sources.sliceEndpoints,
    registry,
    rateLimitConfigs: loop.rateLimitConfigs,
    resources: store,
    isLeader: leadership.isLeader,
    log,
  });
  const running = await startParts(
    [
      profiles,
      health,
      metricsServer,
      ...sources.parts,
      loop.part,
      createXdsServerPart(xds),
      ...(shadowReport ? [shadowReport] : []),
      ...(leadership.part ? [leadership.part] : []),
    ],
    log,
  );
  return {
    xds,
    store,
    ports: { xds: xds.port, health: health.port, metrics: metricsServer.port },
    profilePort: profiles.port,
    reconcileNow: loop.reconcileNow,
    isLeader: leadership.isLeader,
    close: () => running.close(),
  };
}
