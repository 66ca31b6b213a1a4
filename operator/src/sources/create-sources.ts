import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger, Part } from '@portcullis/kit';
import type { Settings } from '../settings.js';
import type { ResourceStore } from '../store.js';
import { DirectorySource } from './directory-source.js';
import {
  createEndpointSliceEndpoints,
  createStaticEndpoints,
  type EndpointSliceEndpoints,
  type EndpointsSource,
} from './endpoints.js';
import { KubernetesSource } from './kubernetes-source.js';
import { SecretReader } from './secret-reader.js';
import type { ResourceSource } from './types.js';

export interface Sources {
  /** The resources: the API server's, or a directory's manifests. */
  resources: ResourceSource;
  /** The Secrets that InboxEndpoints name; undefined in directory mode, where the store answers. */
  secretReader: SecretReader | undefined;
  endpoints: EndpointsSource;
  /** `endpoints` when they come from EndpointSlices (Kubernetes mode), for the shadow report's targets. */
  sliceEndpoints: EndpointSliceEndpoints | undefined;
  /** In start order: resources, endpoints, then the secret reader. */
  parts: Part[];
}

/** What the operator reads: from the API server when `kubeConfig` is given, else from files and settings. */
export function createSources(o: {
  settings: Pick<Settings, 'watchNamespace' | 'manifestsDir' | 'secretRefreshMs' | 'namespace' | 'discovery'>;
  kubeConfig: KubeConfig | undefined;
  store: ResourceStore;
  log: Logger;
}): Sources {
  const { settings, kubeConfig, store, log } = o;
  const resources: ResourceSource = kubeConfig
    ? new KubernetesSource({ kubeConfig, store, log, watchNamespace: settings.watchNamespace })
    : new DirectorySource({ dir: settings.manifestsDir, store, log });
  const secretReader =
    kubeConfig && new SecretReader({ kubeConfig, log, refreshMs: settings.secretRefreshMs });
  const sliceEndpoints =
    kubeConfig &&
    createEndpointSliceEndpoints({
      kubeConfig,
      namespace: settings.namespace,
      services: settings.discovery.services,
      log,
    });
  const endpoints = sliceEndpoints ?? createStaticEndpoints(settings.discovery.endpoints);
  return {
    resources,
    secretReader,
    endpoints,
    sliceEndpoints,
    parts: [
      { name: 'source', start: () => resources.start(), close: () => resources.close() },
      { name: 'endpoints', start: () => endpoints.start(), close: () => endpoints.close() },
      ...(secretReader
        ? [{ name: 'secret reader', start: () => secretReader.start(), close: () => secretReader.close() }]
        : []),
    ],
  };
}
