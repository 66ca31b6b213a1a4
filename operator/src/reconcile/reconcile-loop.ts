import { KINDS } from '@portcullis/config';
import type { Logger, Part } from '@portcullis/kit';
import { buildServiceDiscovery, type SotwServer } from '@portcullis/xds';
import { typeLabel, type OperatorMetrics } from '../metrics.js';
import type { SecretReader } from '../sources/secret-reader.js';
import type { EndpointsSource } from '../sources/endpoints.js';
import type { StatusSink } from '../status/status-writer.js';
import type { ResourceStore } from '../store.js';
import { Reconciler } from './reconciler.js';
import type { KindResult, Outcome } from './types.js';

const DEBOUNCE_MS = 20;

export interface ReconcileLoop {
  /** Reconciles now (instead of after the debounce) and resolves when statuses are written. */
  reconcileNow: () => Promise<void>;
  /** The first reconcile: started once it has set the first snapshot, not when its statuses are written. */
  part: Part;
  /** The RateLimitConfigs of the last reconcile; undefined before the first. */
  rateLimitConfigs: () => KindResult | undefined;
}

/**
 * Reconciles the store (debounced after each change of resources, endpoints or Secrets) into the xDS
 * snapshot and hands the outcomes to the status queue. A status someone else changed is put back from the
 * last outcome of its resource.
 */
export function createReconcileLoop(o: {
  store: ResourceStore;
  secretReader: SecretReader | undefined;
  endpoints: EndpointsSource;
  xds: SotwServer;
  gatewayDomain: string;
  statusSink: StatusSink;
  writeStatuses: (outcomes: readonly Outcome[]) => Promise<void>;
  metrics: OperatorMetrics;
  log: Logger;
}): ReconcileLoop {
  const { store, secretReader, xds, metrics } = o;
  const reconciler = new Reconciler({ gatewayDomain: o.gatewayDomain });
  const versions = new Map<string, string>();
  let lastRateLimitConfigs: KindResult | undefined;
  let running: Promise<void> = Promise.resolve();
  let snapshotSet: () => void = () => undefined;
  const firstSnapshot = new Promise<void>((resolve) => (snapshotSet = resolve));
  let timer: NodeJS.Timeout | undefined;
  let lastOutcomes = new Map<string, Outcome>();
  store.onStatusChange((r) => {
    const last = lastOutcomes.get(r.metadata.uid);
    if (last?.resource.metadata.generation === r.metadata.generation)
      void o.writeStatuses([{ ...last, resource: r }]);
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
          const rejected = outcomes.filter((x) => x.rejection).length;
          metrics.reconciles.inc({ kind, result: 'rejected' }, rejected);
          metrics.reconciles.inc({ kind, result: 'accepted' }, outcomes.length - rejected);
        }
        lastRateLimitConfigs = results.RateLimitConfig;
        for (const [typeUrl, resources] of buildServiceDiscovery(o.endpoints.current())) {
          xds.setResources(typeUrl, resources);
        }
        end();
        snapshotSet();
        const outcomes = KINDS.flatMap((k) => results[k].outcomes);
        lastOutcomes = new Map(outcomes.map((x) => [x.resource.metadata.uid, x]));
        o.statusSink.retain(lastOutcomes);
        written = o.writeStatuses(outcomes);
      })
      .catch((err: unknown) => o.log.error({ err }, 'reconcile failed'));
    return running.then(() => written);
  };
  const schedule = (): void => {
    metrics.queueDepth.inc();
    clearTimeout(timer);
    timer = setTimeout(() => void reconcileNow(), DEBOUNCE_MS);
  };
  store.onChange(schedule);
  o.endpoints.onChange(schedule);
  secretReader?.onChange(schedule);
  return {
    reconcileNow,
    // xDS serves as soon as the first snapshot is set: with thousands of resources, writing their
    // statuses takes minutes, and the clients need not wait for them
    part: {
      name: 'first reconcile',
      start: () => Promise.race([reconcileNow(), firstSnapshot]),
      close: () => clearTimeout(timer),
    },
    rateLimitConfigs: () => lastRateLimitConfigs,
  };
}
