import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { createBuiltinDefs, CRD_STORAGE_KEY, NAMESPACE_STORAGE_KEY } from './builtins.js';
import type { ApiContext, Target } from './context.js';
import { loadCrdDirs, type CrdSource } from './crd-loader.js';
import { ApiError } from './errors.js';
import { FaultInjector, type DelayRule, type FailRule } from './faults.js';
import { createRequestHandler, type RequestRecord } from './http-server.js';
import { createKubeConfig, renderKubeconfig } from './kubeconfig.js';
import { ResourceRegistry } from './registry.js';
import { ObjectStore } from './store.js';
import type { StoreEvent } from './types.js';
import { WatchHub } from './watch.js';
import { createObject } from './write-ops.js';

export type { DelayRule, FailRule, RequestMatch } from './faults.js';
export type { RequestRecord } from './http-server.js';
export type { KubeObject, StoreEvent } from './types.js';

export interface KubeApiServerOptions {
  /** Directories of CRD manifests (`*.yaml`, `*.yml`, `*.json`); other kinds in them are skipped. */
  crdDirs?: string[];
  /** CRD manifests as objects. */
  crds?: object[];
  /** Events kept for watch replay; older resourceVersions get 410 Expired. Default 1000. */
  historyLimit?: number;
  /** Default 0: a free port. */
  port?: number;
  log?: Logger;
  /** BOOKMARK period for watches that allow them. Default 1000. */
  bookmarkIntervalMs?: number;
  /** How a watch from a compacted resourceVersion fails. Default `event`. */
  expiredWatchAs?: 'event' | 'http';
}

export interface KubeApiServerHooks {
  /** Forgets the watch history: every watch or continue token from an older resourceVersion gets 410. */
  compactHistory(): void;
  /** Ends every open watch; `abrupt` destroys the socket mid-stream. Returns how many were open. */
  dropWatches(mode?: 'graceful' | 'abrupt'): number;
  /** Holds watch events back (as a stalled connection) until `resumeWatches()`. */
  pauseWatches(): void;
  resumeWatches(): void;
  /** The next `count` (default 1) matching requests get `status` with a Kubernetes Status body. */
  failNext(rule: FailRule): void;
  /** Matching requests wait `delayMs` before being served. */
  delay(rule: DelayRule): void;
  clearFaults(): void;
  /** How watches from a compacted resourceVersion fail from now on. */
  setExpiredWatchAs(mode: 'event' | 'http'): void;
  /** Every committed write since start (or the last reset), objects in storage form. */
  events(): StoreEvent[];
  /** Served requests, oldest first (the last 10 000). */
  requests(): RequestRecord[];
  openWatches(): number;
  /** The current global resourceVersion. */
  revision(): number;
  /** Back to the start state: objects, API-installed CRDs, faults and logs go; open watches end. */
  reset(): void;
}

export interface KubeApiServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** A kubeconfig file for kubectl, removed by `close()`. */
  readonly kubeconfigPath: string;
  /** A private kubectl discovery cache directory (`--cache-dir` or `KUBECACHEDIR`). */
  readonly cacheDir: string;
  readonly hooks: KubeApiServerHooks;
  /** The kubeconfig YAML text. */
  kubeconfig(): string;
  /** A client-node KubeConfig for this server. */
  kubeConfig(): KubeConfig;
  makeKubeConfig(): KubeConfig;
  close(): Promise<void>;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function startKubeApiServer(opts: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const crdSources: CrdSource[] = [
    ...(await loadCrdDirs(opts.crdDirs ?? [])),
    ...(opts.crds ?? []).map((manifest, i) => ({
      source: `crds[${i}]`,
      manifest: manifest as Record<string, unknown>,
    })),
  ];
  let nextIp = 10;
  const allocateClusterIp = (): string => `10.96.${Math.floor(nextIp / 256)}.${nextIp++ % 256}`;
  const registry = new ResourceRegistry(createBuiltinDefs(allocateClusterIp));
  const ctx: ApiContext = {
    store: new ObjectStore(opts.historyLimit ?? 1000),
    registry,
    now: () => Date.now(),
  };
  const hubOptions = {
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000,
    expiredWatchAs: opts.expiredWatchAs ?? 'event',
  };
  const hub = new WatchHub(ctx, hubOptions);
  const faults = new FaultInjector();
  const requests: RequestRecord[] = [];
  const log = opts.log?.child({ component: 'kube-apiserver' });
  seed(ctx, crdSources);

  const server = createServer(createRequestHandler({ ctx, hub, faults, log, requests }));
  const port = await listen(server, opts.port ?? 0);
  const url = `http://127.0.0.1:${port}`;
  const dir = await mkdtemp(join(tmpdir(), 'kube-apiserver-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const kubeconfigText = renderKubeconfig(url);
  await writeFile(kubeconfigPath, kubeconfigText);
  log?.info({ url, kubeconfigPath, crds: crdSources.length }, 'kube-apiserver started');

  const hooks: KubeApiServerHooks = {
    compactHistory: () => ctx.store.compact(),
    dropWatches: (mode = 'graceful') => hub.drop(mode),
    pauseWatches: () => hub.pause(),
    resumeWatches: () => hub.resume(),
    failNext: (rule) => faults.failNext(rule),
    delay: (rule) => faults.delay(rule),
    clearFaults: () => faults.clear(),
    setExpiredWatchAs: (mode) => {
      hubOptions.expiredWatchAs = mode;
    },
    events: () => ctx.store.events(),
    requests: () => [...requests],
    openWatches: () => hub.size,
    revision: () => ctx.store.revision,
    reset: () => {
      hub.drop('graceful');
      faults.clear();
      requests.length = 0;
      ctx.store.reset();
      registry.reset();
      seed(ctx, crdSources);
    },
  };

  return {
    url,
    port,
    kubeconfigPath,
    cacheDir: join(dir, 'cache'),
    hooks,
    kubeconfig: () => kubeconfigText,
    kubeConfig: () => createKubeConfig(url),
    makeKubeConfig: () => createKubeConfig(url),
    close: async () => {
      hub.drop('graceful');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await rm(dir, { recursive: true, force: true });
      log?.info({ url }, 'kube-apiserver stopped');
    },
  };
}

/** Default namespaces and the configured CRDs, written through the normal create path. */
function seed(ctx: ApiContext, crds: CrdSource[]): void {
  const writeOpts = { dryRun: false, fieldValidation: 'Strict' as const, warnings: [] };
  const target = (storageKey: string, name: string): Target => {
    const def = ctx.registry.all().find((d) => d.storageKey === storageKey);
    if (!def) throw new Error(`no built-in resource stored at ${storageKey}`);
    return { def, namespace: '', name, subresource: undefined };
  };
  for (const name of DEFAULT_NAMESPACES) {
    createObject(ctx, target(NAMESPACE_STORAGE_KEY, name), { metadata: { name } }, writeOpts);
  }
  for (const { source, manifest } of crds) {
    try {
      createObject(ctx, target(CRD_STORAGE_KEY, ''), manifest, writeOpts);
    } catch (e: unknown) {
      throw new Error(`${source}: ${e instanceof ApiError ? e.message : String(e)}`, { cause: e });
    }
  }
}

async function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
