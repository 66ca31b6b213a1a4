import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  EventsV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type KubeConfig,
  type V1EndpointSlice,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CRD_DIR, GROUP, rateLimitConfig, rateLimitConfigs, rejection } from './fixtures.js';
import { startKubeApiServer, type KubeApiServer } from './index.js';

let server: KubeApiServer;
let kc: KubeConfig;
let core: CoreV1Api;

beforeAll(async () => {
  server = await startKubeApiServer({ crdDirs: [FIXTURE_CRD_DIR] });
  kc = server.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(() => server.close());
beforeEach(() => server.hooks.reset());

describe('coordination.k8s.io/v1 Lease', () => {
  const namespace = 'kube-system';

  it('stores MicroTime with six fractional digits and allows unconditional updates', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const renewTime = new V1MicroTime('2025-03-04T05:06:07.123Z');
    const spec = { holderIdentity: 'pod-a', leaseDurationSeconds: 15, acquireTime: renewTime, renewTime };
    const created = await leases.createNamespacedLease({
      namespace,
      body: { metadata: { name: 'leader' }, spec },
    });
    expect(created.spec?.renewTime).toBe('2025-03-04T05:06:07.123000Z');
    const taken = await leases.replaceNamespacedLease({
      namespace,
      name: 'leader',
      body: { metadata: { name: 'leader' }, spec: { ...spec, holderIdentity: 'pod-b', leaseTransitions: 1 } },
    });
    expect(taken.spec?.holderIdentity).toBe('pod-b');
    const stale = await rejection(
      leases.replaceNamespacedLease({
        namespace,
        name: 'leader',
        body: { metadata: { name: 'leader', resourceVersion: created.metadata?.resourceVersion }, spec },
      }),
    );
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "leader": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('rejects a JavaScript Date (three fractional digits) with 400, as the real server does', async () => {
    const leases = kc.makeApiClient(CoordinationV1Api);
    const spec = { holderIdentity: 'pod-a', renewTime: new Date('2025-03-04T05:06:07.123Z') };
    const status = await rejection(
      leases.createNamespacedLease({ namespace, body: { metadata: { name: 'leader' }, spec } }),
    );
    expect(status).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(status.message).toBe(
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2025-03-04T05:06:07.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
  });
});

describe('core/v1 Secret', () => {
  it('turns stringData into base64 data, defaults the type and lists items without kind', async () => {
    const created = await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 's' }, stringData: { token: 'abc' } },
    });
    expect(created).toMatchObject({ type: 'Opaque', data: { token: 'YWJj' } });
    expect(created.stringData).toBeUndefined();
    const raw = (await (await fetch(`${server.url}/api/v1/namespaces/default/secrets`)).json()) as {
      kind: string;
      items: object[];
    };
    expect(raw.kind).toBe('SecretList');
    expect(raw.items[0]).not.toHaveProperty('kind');
  });

  it('rejects data that is not base64', async () => {
    const status = await rejection(
      core.createNamespacedSecret({
        namespace: 'default',
        body: { metadata: { name: 's' }, data: { k: 'not base64!' } },
      }),
    );
    expect(status.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    );
  });
});

describe('events', () => {
  it('serves one event store through core/v1 and events.k8s.io/v1', async () => {
    const events = kc.makeApiClient(EventsV1Api);
    await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'e1' },
        eventTime: new V1MicroTime('2025-01-01T00:00:00Z'),
        reportingController: 'portcullis.dev/operator',
        reportingInstance: 'operator-0',
        action: 'Reconcile',
        reason: 'Synced',
        type: 'Normal',
        note: 'config pushed',
        regarding: { kind: 'RateLimitConfig', name: 'checkout', namespace: 'default' },
      },
    });
    const legacy = await core.readNamespacedEvent({ namespace: 'default', name: 'e1' });
    expect(legacy).toMatchObject({
      message: 'config pushed',
      reportingComponent: 'portcullis.dev/operator',
      involvedObject: { name: 'checkout' },
    });
    const byObject = await core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=checkout,reason=Synced',
    });
    expect(byObject.items.map((e) => e.metadata.name)).toEqual(['e1']);
  });

  it('validates the events.k8s.io required fields and the involved namespace', async () => {
    const events = kc.makeApiClient(EventsV1Api);
    const status = await rejection(
      events.createNamespacedEvent({
        namespace: 'default',
        body: { metadata: { name: 'e' }, eventTime: new V1MicroTime(), type: 'Normal', reason: 'R' },
      }),
    );
    expect(status.message).toBe(
      'Event.events.k8s.io "e" is invalid: [reportingController: Required value, reportingInstance: Required value, action: Required value]',
    );
    const legacy = await rejection(
      core.createNamespacedEvent({
        namespace: 'default',
        body: { metadata: { name: 'e' }, involvedObject: { namespace: 'other' } },
      }),
    );
    expect(legacy.message).toBe(
      'Event "e" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
  });
});

describe('core/v1 Namespace', () => {
  it('terminates: content goes, finalizers hold it, new content is refused', async () => {
    await core.createNamespace({ body: { metadata: { name: 'team' } } });
    const rlc = rateLimitConfigs(kc, 'team');
    await rlc.create({
      ...rateLimitConfig('held'),
      metadata: { name: 'held', finalizers: ['example.dev/f'] },
    });
    await core.createNamespacedSecret({ namespace: 'team', body: { metadata: { name: 's' } } });
    const terminating = await core.deleteNamespace({ name: 'team' });
    expect(terminating).toMatchObject({ status: { phase: 'Terminating' } });
    expect(await rejection(core.readNamespacedSecret({ namespace: 'team', name: 's' }))).toMatchObject({
      code: 404,
    });
    expect((await rlc.get('held')).metadata.deletionTimestamp).toBeDefined();
    const refused = await rejection(
      core.createNamespacedSecret({ namespace: 'team', body: { metadata: { name: 'late' } } }),
    );
    expect(refused).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(refused.message).toBe(
      'secrets "late" is forbidden: unable to create new content in namespace team because it is being terminated',
    );
    await rlc.patch('held', { metadata: { finalizers: [] } });
    expect(await rejection(core.readNamespace({ name: 'team' }))).toMatchObject({
      code: 404,
      message: 'namespaces "team" not found',
    });
  });
});

describe('discovery.k8s.io/v1 EndpointSlice and core/v1 Service', () => {
  it('bumps EndpointSlice generation on content changes and requires addressType', async () => {
    const slices = kc.makeApiClient(DiscoveryV1Api);
    const body = {
      metadata: { name: 'rls-abc', labels: { 'kubernetes.io/service-name': 'rls' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }],
    };
    const created = await slices.createNamespacedEndpointSlice({ namespace: 'default', body });
    expect(created.metadata?.generation).toBe(1);
    const patch = { endpoints: [{ addresses: ['10.0.0.2'] }] };
    const patched = await slices.patchNamespacedEndpointSlice(
      { namespace: 'default', name: 'rls-abc', body: patch },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.generation).toBe(2);
    const withoutAddressType = { metadata: { name: 'x' }, endpoints: [] } as unknown as V1EndpointSlice;
    const status = await rejection(
      slices.createNamespacedEndpointSlice({ namespace: 'default', body: withoutAddressType }),
    );
    expect(status.message).toBe('EndpointSlice.discovery.k8s.io "x" is invalid: addressType: Required value');
  });

  it('allocates a cluster IP and merges ports by port in a strategic merge patch', async () => {
    const ports = [
      { name: 'grpc', port: 8081 },
      { name: 'http', port: 8080 },
    ];
    const created = await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'rls' }, spec: { ports } },
    });
    expect(created.spec?.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    const patched = await core.patchNamespacedService(
      { namespace: 'default', name: 'rls', body: { spec: { ports: [{ port: 8080, targetPort: 9090 }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.spec?.ports?.map((p) => [p.port, p.targetPort])).toEqual([
      [8081, 8081],
      [8080, 9090],
    ]);
  });
});

describe('CustomResourceDefinitions through the API', () => {
  it('serves a CRD as soon as it is created and removes its objects with it', async () => {
    const crds = kc.makeApiClient(ApiextensionsV1Api);
    await crds.createCustomResourceDefinition({
      body: {
        metadata: { name: 'widgets.example.portcullis.dev' },
        spec: {
          group: GROUP,
          scope: 'Namespaced',
          names: { plural: 'widgets', kind: 'Widget' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const widget = {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { size: 3 },
    };
    await objects.create(widget);
    expect(
      (
        await objects.read({
          apiVersion: `${GROUP}/v1`,
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'default' },
        })
      ).metadata?.uid,
    ).toBeDefined();
    await crds.deleteCustomResourceDefinition({ name: 'widgets.example.portcullis.dev' });
    const gone = await fetch(`${server.url}/apis/${GROUP}/v1/namespaces/default/widgets/w`);
    expect(gone.status).toBe(404);
    expect(
      server.hooks
        .events()
        .filter((e) => e.type === 'DELETED')
        .map((e) => e.object.metadata.name),
    ).toEqual(['w', 'widgets.example.portcullis.dev']);
  });

  it('rejects a CRD whose name does not match its names and group', async () => {
    const crds = kc.makeApiClient(ApiextensionsV1Api);
    const status = await rejection(
      crds.createCustomResourceDefinition({
        body: {
          metadata: { name: 'wrong.example.portcullis.dev' },
          spec: {
            group: GROUP,
            scope: 'Namespaced',
            names: { plural: 'things', kind: 'Thing' },
            versions: [
              { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
            ],
          },
        },
      }),
    );
    expect(status.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "wrong.example.portcullis.dev" is invalid: metadata.name: Invalid value: "wrong.example.portcullis.dev": must be spec.names.plural+"."+spec.group',
    );
  });
});

describe('fault injection', () => {
  it('fails the next matching requests with the given status, then recovers', async () => {
    server.hooks.failNext({
      method: 'GET',
      path: '/api/v1/namespaces/default/secrets',
      status: 503,
      count: 2,
    });
    for (let i = 0; i < 2; i++) {
      expect(await rejection(core.listNamespacedSecret({ namespace: 'default' }))).toMatchObject({
        code: 503,
        reason: 'ServiceUnavailable',
      });
    }
    expect((await core.listNamespacedSecret({ namespace: 'default' })).items).toEqual([]);
  });

  it('delays matching requests', async () => {
    server.hooks.delay({ path: /\/namespaces\/default$/, delayMs: 150, count: 1 });
    const started = performance.now();
    await core.readNamespace({ name: 'default' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });
});
