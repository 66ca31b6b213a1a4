import type { KubeConfig } from '@kubernetes/client-node';
import {
  createErrorMapper,
  createHttpApp,
  createMetricsRegistry,
  createProfileServerPart,
  listenHttp,
  startParts,
  type Logger,
  type Part,
} from '@portcullis/kit';
import { buildServiceDiscovery, createSotwServer, type SotwServer } from '@portcullis/xds';
import { KINDS } from '@portcullis/config';
import { loadKubeConfig, reuseConnections } from './kube-config.js';
import { LeaderElector } from './leader-election.js';
import { createOperatorMetrics, typeLabel } from './metrics.js';
import { Reconciler } from './reconcile/reconciler.js';
import type { KindResult, Outcome } from './reconcile/types.js';

import { ensureKeysSecret } from './secrets.js';
import { createShadowReportPart } from './shadow-report/shadow-report-part.js';
import { servedConfigs, type ServedConfig } from './shadow-report/shadow-reporter.js';
import type { Settings } from './settings.js';
import { DirectorySource } from './sources/directory-source.js';
import { createEndpointSliceEndpoints, createStaticEndpoints } from './sources/endpoints.js';
import { KubernetesSource } from './sources/kubernetes-source.js';
import { SecretReader } from './sources/secret-reader.js';
import type { ResourceSource } from './sources/types.js';
import { KubernetesStatusSink, LogStatusSink, type StatusSink } from './status/status-writer.js';
import { ResourceStore } from './store.js';

export interface OperatorApp {
  xds: SotwServer;
  store: ResourceStore;
  ports: { xds: number; health: number; metrics: number };
  /** The `/debug/pprof/` port (`OPERATOR_DEBUG_PORT`); undefined when off. */
  profilePort: number | undefined;
  /** Reconciles now (instead of after the debounce) and resolves when statuses are written. */
  reconcileNow(): Promise<void>;
  isLeader(): boolean;
  close(): Promise<void>;
}

const DEBOUNCE_MS = 20;

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
  const xds = createSotwServer({
    host: settings.xds.host,
    port: settings.xds.port,
    log,
    ...(settings.xds.tls.cert
      ? {
          tls: {
            cert: settings.xds.tls.cert,
            key: settings.xds.tls.key,
            ...(settings.xds.tls.clientCa ? { clientCa: settings.xds.tls.clientCa } : {}),
          },
        }
      : {}),
  });
  const metrics = createOperatorMetrics(registry, () => xds.clients().length);
  xds.on('ack', (e) => metrics.acks.inc({ type: typeLabel(e.typeUrl) }));
  xds.on('response', (e) => {
    metrics.responses.inc({ type: typeLabel(e.typeUrl) });
    metrics.responseBytes.inc({ type: typeLabel(e.typeUrl) }, e.bytes);
  });
  xds.on('nack', (e) => {
    metrics.nacks.inc({ type: typeLabel(e.typeUrl) });
    log.warn(
      { nodeId: e.nodeId, typeUrl: e.typeUrl, version: e.version, problem: e.message },
      'xDS client rejected a snapshot',
    );
  });

  const kubeConfig =
    settings.source === 'kubernetes'
      ? reuseConnections(deps.kubeConfig ?? loadKubeConfig(settings.kubeconfig))
      : undefined;
  const source: ResourceSource = kubeConfig
    ? new KubernetesSource({ kubeConfig, store, log, watchNamespace: settings.watchNamespace })
    : new DirectorySource({ dir: settings.manifestsDir, store, log });
  const secretReader =
    kubeConfig && new SecretReader({ kubeConfig, log, refreshMs: settings.secretRefreshMs });
  const statusSink: StatusSink = kubeConfig
    ? new KubernetesStatusSink({ kubeConfig, log, writes: metrics.statusWrites })
    : new LogStatusSink(log.child({ component: 'status' }));
  const sliceEndpoints =
    kubeConfig &&
    createEndpointSliceEndpoints({
      kubeConfig,
      namespace: settings.namespace,
      services: settings.discovery.services,
      log,
    });
  const endpoints = sliceEndpoints ?? createStaticEndpoints(settings.discovery.endpoints);
  let elector: LeaderElector | undefined;
  const isLeader = (): boolean =>
    !kubeConfig || !settings.leaderElection.enabled || (elector?.isLeader() ?? false);

  const reconciler = new Reconciler({ gatewayDomain: settings.gatewayRateLimitDomain });
  const versions = new Map<string, string>();
  // built when the shadow report asks (once a minute), not on every reconcile
  let lastRateLimitConfigs: KindResult | undefined;
  let served: ServedConfig[] | undefined;
  let running: Promise<void> = Promise.resolve();
  let snapshotSet: () => void = () => undefined;
  const firstSnapshot = new Promise<void>((resolve) => (snapshotSet = resolve));
  let timer: NodeJS.Timeout | undefined;
  // Statuses are written apart from the reconciles, so an edit never waits behind the first reconcile's
  // thousands of writes; outcomes queued behind a write in progress collapse into the newest per resource.
  let statusesWritten: Promise<void> = Promise.resolve();
  const unwritten = new Map<string, Outcome>();
  let writing = 0;
  const pending = (): void => metrics.statusWritesPending.set(unwritten.size + writing);
  const writeStatuses = (outcomes: readonly Outcome[]): Promise<void> => {
    for (const o of outcomes) unwritten.set(o.resource.metadata.uid, o);
    pending();
    statusesWritten = statusesWritten
      .then(async () => {
        const next = [...unwritten.values()];
        unwritten.clear();
        writing = next.length;
        if (next.length > 0 && isLeader()) await statusSink.write(next);
      })
      .catch((err: unknown) => log.error({ err }, 'statuses not written'))
      .finally(() => {
        writing = 0;
        pending();
      });
    return statusesWritten;
  };
  // the last reconcile's outcome of each resource: a status changed by someone else is put back from it
  let lastOutcomes = new Map<string, Outcome>();
  store.onStatusChange((r) => {
    const o = lastOutcomes.get(r.metadata.uid);
    if (o?.resource.metadata.generation === r.metadata.generation)
      void writeStatuses([{ ...o, resource: r }]);
  });
  const reconcileNow = (): Promise<void> => {
    clearTimeout(timer);
    let written: Promise<void> = Promise.resolve();
    running = running
      .then(async () => {
        metrics.queueDepth.set(0);
        const end = metrics.reconcileSeconds.startTimer();
        let results = reconciler.reconcile(store, secretReader ?? store);
        // Secrets named for the first time are read, then used: a new reference never shows as missing
        if (secretReader && (await secretReader.settle()))
          results = reconciler.reconcile(store, secretReader);
        for (const kind of KINDS) {
          const { typeUrl, resources, outcomes } = results[kind];
          const version = xds.setResources(typeUrl, resources);
          if (versions.get(typeUrl) !== version) {
            versions.set(typeUrl, version);
            metrics.pushes.inc({ type: typeLabel(typeUrl) });
          }
          const rejected = outcomes.filter((o) => o.rejection).length;
          metrics.reconciles.inc({ kind, result: 'rejected' }, rejected);
          metrics.reconciles.inc({ kind, result: 'accepted' }, outcomes.length - rejected);
        }
        lastRateLimitConfigs = results.RateLimitConfig;
        served = undefined;
        for (const [typeUrl, resources] of buildServiceDiscovery(endpoints.current())) {
          xds.setResources(typeUrl, resources);
        }
        end();
        snapshotSet();
        const outcomes = KINDS.flatMap((k) => results[k].outcomes);
        lastOutcomes = new Map(outcomes.map((o) => [o.resource.metadata.uid, o]));
        statusSink.retain(lastOutcomes);
        written = writeStatuses(outcomes);
      })
      .catch((err: unknown) => log.error({ err }, 'reconcile failed'));
    return running.then(() => written);
  };
  const schedule = (): void => {
    metrics.queueDepth.inc();
    clearTimeout(timer);
    timer = setTimeout(() => void reconcileNow(), DEBOUNCE_MS);
  };
  store.onChange(schedule);
  endpoints.onChange(schedule);
  secretReader?.onChange(schedule);

  const health = createHttpApp(log.child({ component: 'health' }), internalError);
  health.get('/healthz', () => ({ status: 'ok' }));
  health.get('/readyz', (_req, reply) => {
    const ready = source.isSynced();
    void reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'syncing', leader: isLeader() });
  });
  const metricsServer = createHttpApp(log.child({ component: 'metrics' }), internalError);
  metricsServer.get('/metrics', async (_req, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  const ports = { xds: 0, health: 0, metrics: 0 };
  const serve = (name: 'health' | 'metrics', app: typeof health): Part => ({
    name: `${name} server`,
    start: async () => {
      ports[name] = (await listenHttp(app, settings[name])).port;
    },
    close: () => app.close(),
  });

  const profiles = createProfileServerPart(settings.profiles, log);
  const parts: Part[] = [
    profiles,
    serve('health', health),
    serve('metrics', metricsServer),
    { name: 'source', start: () => source.start(), close: () => source.close() },
    { name: 'endpoints', start: () => endpoints.start(), close: () => endpoints.close() },
    ...(secretReader
      ? [{ name: 'secret reader', start: () => secretReader.start(), close: () => secretReader.close() }]
      : []),
    // xDS serves as soon as the first snapshot is set: with thousands of resources, writing their
    // statuses takes minutes, and the clients need not wait for them
    {
      name: 'first reconcile',
      start: () => Promise.race([reconcileNow(), firstSnapshot]),
      close: () => clearTimeout(timer),
    },
    {
      name: 'xds server',
      start: async () => {
        await xds.start();
        ports.xds = xds.port;
      },
      close: () => xds.close(),
    },
  ];
  const shadowReport = createShadowReportPart({
    settings: settings.shadowReport,
    kubeConfig,
    endpoints: sliceEndpoints,
    registry,
    served: () => (served ??= lastRateLimitConfigs ? servedConfigs(lastRateLimitConfigs) : []),
    resources: store,
    isLeader,
    log,
  });
  if (shadowReport) parts.push(shadowReport);
  if (kubeConfig && settings.leaderElection.enabled) {
    const le = settings.leaderElection;
    elector = new LeaderElector({
      kubeConfig,
      namespace: settings.namespace,
      leaseName: le.leaseName,
      identity: settings.identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      log,
      onStartedLeading: () => {
        metrics.leader.set(1);
        void ensureKeysSecret({
          kubeConfig,
          namespace: settings.namespace,
          name: settings.keysSecretName,
          log,
        }).catch((err: unknown) => log.error({ err }, 'keys secret not ensured'));
        void reconcileNow();
      },
      onStoppedLeading: () => metrics.leader.set(0),
    });
    const leader = elector;
    parts.push({ name: 'leader election', start: () => leader.start(), close: () => leader.stop() });
  }
  const running$ = await startParts(parts, log);
  return {
    xds,
    store,
    ports,
    profilePort: profiles.port,
    reconcileNow,
    isLeader,
    close: () => running$.close(),
  };
}

/** The health and metrics endpoints have no errors of their own: kit's edge errors, anything else `INTERNAL`. */
const internalError = createErrorMapper([]);
