import {
  DiscoveryV1Api,
  makeInformer,
  type KubeConfig,
  type ListPromise,
  type V1EndpointSlice,
} from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import type { ServiceEndpoint } from '@portcullis/xds';
import { keepInformerRunning } from './keep-informer-running.js';

/** Where the ready addresses of the services handed out over xDS (`xds:///ratelimit`) come from. */
export interface EndpointsSource {
  start(): Promise<void>;
  close(): Promise<void>;
  current(): ReadonlyMap<string, readonly ServiceEndpoint[]>;
  onChange(listener: () => void): void;
}

/** Local mode: fixed addresses from the settings. */
export function createStaticEndpoints(
  services: Readonly<Record<string, readonly ServiceEndpoint[]>>,
): EndpointsSource {
  const current = new Map(Object.entries(services));
  return {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    current: () => current,
    onChange: () => undefined,
  };
}

const SERVICE_LABEL = 'kubernetes.io/service-name';

/** EndpointSlices also know a Service's other ports. */
export interface EndpointSliceEndpoints extends EndpointsSource {
  /** The ready endpoints of the service named `name` on the port named `portName` (another than gRPC's). */
  ready(name: string, portName: string): ServiceEndpoint[];
}

/**
 * Cluster mode: the ready endpoints of Services, from their EndpointSlices (one informer per Service). `services` maps the name handed out over xDS to
 * the Kubernetes Service and the name of its gRPC port.
 */
export function createEndpointSliceEndpoints(o: {
  kubeConfig: KubeConfig;
  namespace: string;
  services: Readonly<Record<string, { service: string; portName: string }>>;
  log: Logger;
}): EndpointSliceEndpoints {
  const log = o.log.child({ component: 'endpoint-slices' });
  const api = o.kubeConfig.makeApiClient(DiscoveryV1Api);
  const listeners: Array<() => void> = [];
  const informers: Array<{ stop(): Promise<void> }> = [];
  const slices = new Map<string, readonly V1EndpointSlice[]>();
  const ready = (name: string, portName: string): ServiceEndpoint[] =>
    (slices.get(name) ?? []).flatMap((s) => {
      const port = s.ports?.find((p) => p.name === portName)?.port;
      if (port === undefined) return [];
      return s.endpoints
        .filter((e) => e.conditions?.ready !== false)
        .flatMap((e) => e.addresses.map((address) => ({ address, port })));
    });
  const current = (): Map<string, ServiceEndpoint[]> =>
    new Map(Object.entries(o.services).map(([name, { portName }]) => [name, ready(name, portName)]));
  const watch = async (name: string, service: string): Promise<void> => {
    const selector = `${SERVICE_LABEL}=${service}`;
    const list = (() =>
      api.listNamespacedEndpointSlice({
        namespace: o.namespace,
        labelSelector: selector,
      })) as ListPromise<V1EndpointSlice>;
    const informer = makeInformer(
      o.kubeConfig,
      `/apis/discovery.k8s.io/v1/namespaces/${o.namespace}/endpointslices`,
      list,
      selector,
    );
    const refresh = (): void => {
      slices.set(name, informer.list(o.namespace));
      for (const l of listeners.slice()) l();
    };
    informer.on('change', refresh);
    const running = keepInformerRunning(informer, { log, label: { service } });
    informers.push(running);
    await running.started;
    refresh();
  };
  return {
    start: async () => {
      await Promise.all(Object.entries(o.services).map(([name, { service }]) => watch(name, service)));
    },
    close: async () => {
      await Promise.all(informers.map((i) => i.stop()));
    },
    current,
    ready,
    onChange: (listener) => void listeners.push(listener),
  };
}
