import {
  CustomObjectsApi,
  makeInformer,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
} from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { GROUP, KINDS, PLURALS, VERSION, type Kind } from '@portcullis/config';
import type { Resource } from '../resources.js';
import type { ResourceStore } from '../store.js';
import { keepInformerRunning, type Backoff } from './keep-informer-running.js';
import type { ResourceSource } from './types.js';

export interface KubernetesSourceOptions {
  kubeConfig: KubeConfig;
  store: ResourceStore;
  log: Logger;
  /** Empty for all namespaces. */
  watchNamespace: string;
  /** Restart delays after an informer error: doubling from `initialMs` up to `maxMs`, with jitter. */
  backoff?: Backoff;
}

type CustomObject = KubernetesObject & { spec?: unknown; status?: Resource['status'] };

/** The custom resources from the Kubernetes API: one informer per kind, kept running through errors. */
export class KubernetesSource implements ResourceSource {
  private readonly informers: Array<{ stop(): Promise<void> }> = [];
  private readonly synced = new Set<Kind>();
  private readonly log: Logger;

  constructor(private readonly o: KubernetesSourceOptions) {
    this.log = o.log.child({ component: 'kubernetes-source' });
  }

  async start(): Promise<void> {
    await Promise.all(KINDS.map((kind) => this.watchKind(kind)));
  }

  async close(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  isSynced(): boolean {
    return this.synced.size === KINDS.length;
  }

  private watchKind(kind: Kind): Promise<void> {
    const { kubeConfig, store, watchNamespace: namespace } = this.o;
    const api = kubeConfig.makeApiClient(CustomObjectsApi);
    const plural = PLURALS[kind];
    const base = `/apis/${GROUP}/${VERSION}`;
    const path = namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
    // The informer lists only when it has no resourceVersion to watch from: at start, after a failed list,
    // and after 410 Gone (its resourceVersion compacted away); the log line makes those relists visible.
    const list: ListPromise<CustomObject> = async () => {
      // CustomObjectsApi is untyped (it returns `any`); the list is a KubernetesListObject of our kind.
      const listed = (await (namespace
        ? api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural })
        : api.listClusterCustomObject({ group: GROUP, version: VERSION, plural }))) as Awaited<
        ReturnType<ListPromise<CustomObject>>
      >;
      this.log.debug(
        { kind, resourceVersion: listed.metadata?.resourceVersion, items: listed.items.length },
        'listed',
      );
      return listed;
    };
    const informer = makeInformer(kubeConfig, path, list);
    const upsert = (obj: CustomObject): void => {
      const r = toResource(kind, obj);
      if (r) store.upsert(r);
      else this.log.warn({ kind, name: obj.metadata?.name }, 'object without name, namespace or uid ignored');
    };
    informer.on('add', upsert);
    informer.on('update', upsert);
    informer.on('delete', (obj) =>
      store.remove(kind, `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`),
    );
    const running = keepInformerRunning(informer, {
      log: this.log,
      label: { kind },
      ...(this.o.backoff ? { backoff: this.o.backoff } : {}),
      onSynced: (synced) => (synced ? this.synced.add(kind) : this.synced.delete(kind)),
    });
    this.informers.push(running);
    return running.started;
  }
}

function toResource(kind: Kind, obj: CustomObject): Resource | undefined {
  const m = obj.metadata;
  if (!m?.name || !m.namespace || !m.uid) return undefined;
  return {
    apiVersion: obj.apiVersion ?? `${GROUP}/${VERSION}`,
    kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      generation: m.generation ?? 1,
      ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
      creationTimestamp: m.creationTimestamp
        ? new Date(m.creationTimestamp).toISOString()
        : new Date(0).toISOString(),
    },
    spec: obj.spec,
    ...(obj.status ? { status: obj.status } : {}),
  };
}
