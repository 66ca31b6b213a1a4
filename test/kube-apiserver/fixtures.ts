import { fileURLToPath } from 'node:url';
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { KubeObject } from './types.js';

/** Shared by the tests: the fixture CRDs and a typed wrapper over client-node's CustomObjectsApi. */

export const FIXTURE_CRD_DIR = fileURLToPath(new URL('./testdata/crds', import.meta.url));
export const FIXTURE_MANIFEST_DIR = fileURLToPath(new URL('./testdata/manifests', import.meta.url));
export const GROUP = 'example.portcullis.dev';

export interface KubeList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: KubeObject[];
}

export interface Status {
  kind: 'Status';
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason: string; message: string; field: string }[];
  };
}

export function rateLimitConfig(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'RateLimitConfig',
    metadata: { name },
    spec: {
      domain: name,
      descriptors: [{ key: 'path', rateLimit: { unit: 'minute', requestsPerUnit: 10 } }],
      ...spec,
    },
  };
}

type Strategy = (typeof PatchStrategy)[keyof typeof PatchStrategy];

/** RateLimitConfig calls through the unmodified client-node API, with results typed for the tests. */
export function rateLimitConfigs(kc: KubeConfig, namespace = 'default') {
  const api = kc.makeApiClient(CustomObjectsApi);
  const base = { group: GROUP, version: 'v1alpha1', plural: 'ratelimitconfigs', namespace };
  const as = (strategy: Strategy) => setHeaderOptions('Content-Type', strategy);
  return {
    api,
    create: async (body: object): Promise<KubeObject> =>
      (await api.createNamespacedCustomObject({ ...base, body })) as KubeObject,
    get: async (name: string): Promise<KubeObject> =>
      (await api.getNamespacedCustomObject({ ...base, name })) as KubeObject,
    list: async (
      query: { labelSelector?: string; fieldSelector?: string; limit?: number; _continue?: string } = {},
    ) => (await api.listNamespacedCustomObject({ ...base, ...query })) as KubeList,
    replace: async (name: string, body: object): Promise<KubeObject> =>
      (await api.replaceNamespacedCustomObject({ ...base, name, body })) as KubeObject,
    replaceStatus: async (name: string, body: object): Promise<KubeObject> =>
      (await api.replaceNamespacedCustomObjectStatus({ ...base, name, body })) as KubeObject,
    patch: async (
      name: string,
      body: object,
      strategy: Strategy = PatchStrategy.MergePatch,
    ): Promise<KubeObject> =>
      (await api.patchNamespacedCustomObject({ ...base, name, body }, as(strategy))) as KubeObject,
    patchStatus: async (
      name: string,
      body: object,
      strategy: Strategy = PatchStrategy.MergePatch,
    ): Promise<KubeObject> =>
      (await api.patchNamespacedCustomObjectStatus({ ...base, name, body }, as(strategy))) as KubeObject,
    delete: async (name: string): Promise<Record<string, unknown>> =>
      (await api.deleteNamespacedCustomObject({ ...base, name })) as Record<string, unknown>,
  };
}

/** The Status body of a rejected client-node call. */
export async function rejection(call: Promise<unknown>): Promise<Status> {
  try {
    await call;
  } catch (e: unknown) {
    if (e instanceof ApiException) {
      const body: unknown = e.body;
      return (typeof body === 'string' ? JSON.parse(body) : body) as Status;
    }
    throw e;
  }
  throw new Error('expected the call to fail');
}
