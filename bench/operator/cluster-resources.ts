import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { domainOf } from './manifests.js';

const GROUP = 'portcullis.dev';
const VERSION = 'v1alpha1';
export const NAMESPACE = 'default';

export interface ClusterCounts {
  rateLimitConfigs: number;
  apiRoutes: number;
  inboxEndpoints: number;
}

interface Manifest {
  plural: string;
  body: Record<string, unknown>;
}

/** The i-th RateLimitConfig: domain and name `bench-00001`…, one descriptor limited to `rpu` per second. */
export function rateLimitConfigSpec(domain: string, rpu: number): Record<string, unknown> {
  return {
    domain,
    descriptors: [{ key: 'client', rate_limit: { unit: 'second', requests_per_unit: rpu } }],
  };
}

function manifests(counts: ClusterCounts, rpu: (i: number) => number): Manifest[] {
  const object = (kind: string, name: string, spec: unknown): Record<string, unknown> => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind,
    metadata: { name, namespace: NAMESPACE },
    spec,
  });
  const all: Manifest[] = [];
  for (let i = 0; i < counts.rateLimitConfigs; i++) {
    const name = domainOf(i, counts.rateLimitConfigs);
    all.push({
      plural: 'ratelimitconfigs',
      body: object('RateLimitConfig', name, rateLimitConfigSpec(name, rpu(i))),
    });
  }
  for (let i = 0; i < counts.apiRoutes; i++) {
    const name = domainOf(i, counts.apiRoutes);
    all.push({
      plural: 'apiroutes',
      body: object('ApiRoute', name, {
        prefix: name,
        routes: [
          {
            name: 'items',
            method: 'GET',
            path: 'items',
            backend: { service: 'items', port: 8080, path: '/internal' },
          },
        ],
      }),
    });
  }
  for (let i = 0; i < counts.inboxEndpoints; i++) {
    const name = domainOf(i, counts.inboxEndpoints);
    all.push({
      plural: 'inboxendpoints',
      body: object('InboxEndpoint', name, {
        endpointId: `${name}-hooks-0123456789ab`,
        forward: [{ url: `http://127.0.0.1:3000/${name}` }],
      }),
    });
  }
  return all;
}

/**
 * Creates every resource through the API, `concurrency` requests in flight at once; resolves with the
 * time it took (ms).
 */
export async function createAll(
  kubeConfig: KubeConfig,
  counts: ClusterCounts,
  o: { concurrency: number; rpu: (i: number) => number },
): Promise<number> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const queue = manifests(counts, o.rpu);
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let m = queue[next++]; m !== undefined; m = queue[next++]) {
      await api.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: NAMESPACE,
        plural: m.plural,
        body: m.body,
      });
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return performance.now() - start;
}

/** Sets the requests_per_unit of one RateLimitConfig (a merge patch of its spec, as `kubectl patch` would). */
export async function editRateLimitConfig(kubeConfig: KubeConfig, name: string, rpu: number): Promise<void> {
  await kubeConfig.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: 'ratelimitconfigs',
      name,
      body: { spec: rateLimitConfigSpec(name, rpu) },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}
