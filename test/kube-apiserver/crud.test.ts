import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CRD_DIR, GROUP, rateLimitConfig, rateLimitConfigs, rejection } from './fixtures.js';
import { startKubeApiServer, type KubeApiServer } from './index.js';

let server: KubeApiServer;
let kc: KubeConfig;
let rlc: ReturnType<typeof rateLimitConfigs>;

beforeAll(async () => {
  server = await startKubeApiServer({ crdDirs: [FIXTURE_CRD_DIR] });
  kc = server.kubeConfig();
  rlc = rateLimitConfigs(kc);
});
afterAll(() => server.close());
beforeEach(() => server.hooks.reset());

describe('create and get', () => {
  it('sets server fields, applies defaults and drops status', async () => {
    const body = { ...rateLimitConfig('checkout'), status: { ruleCount: 3 } };
    const created = await rlc.create(body);
    expect(created.metadata).toMatchObject({ name: 'checkout', namespace: 'default', generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(created['spec']).toMatchObject({ mode: 'enforce', failureModeDeny: false });
    expect(created['status']).toBeUndefined();
    expect(await rlc.get('checkout')).toEqual(created);
  });

  it('answers a missing object with a NotFound Status naming the resource', async () => {
    expect(await rejection(rlc.get('missing'))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ratelimitconfigs.example.portcullis.dev "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', group: GROUP, kind: 'ratelimitconfigs' },
      code: 404,
    });
  });

  it('refuses a second object with the same name', async () => {
    await rlc.create(rateLimitConfig('dup'));
    const status = await rejection(rlc.create(rateLimitConfig('dup')));
    expect(status).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect(status.message).toBe('ratelimitconfigs.example.portcullis.dev "dup" already exists');
  });

  it('generates a name from generateName', async () => {
    const body = { ...rateLimitConfig('gen'), metadata: { generateName: 'gen-' } };
    const created = await rlc.create(body);
    expect(created.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('refuses content in a namespace that does not exist', async () => {
    const status = await rejection(rateLimitConfigs(kc, 'nowhere').create(rateLimitConfig('a')));
    expect(status).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
  });

  it('shares one increasing resourceVersion across kinds', async () => {
    const a = await rlc.create(rateLimitConfig('a'));
    const core = kc.makeApiClient(CoreV1Api);
    const secret = await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 's' } },
    });
    const b = await rlc.create(rateLimitConfig('b'));
    const revs = [
      a.metadata.resourceVersion,
      secret.metadata?.resourceVersion,
      b.metadata.resourceVersion,
    ].map(Number);
    expect(revs[1]).toBe(revs[0]! + 1);
    expect(revs[2]).toBe(revs[1]! + 1);
    expect((await rlc.list()).metadata.resourceVersion).toBe(String(server.hooks.revision()));
  });
});

describe('update', () => {
  it('requires metadata.resourceVersion on PUT of a custom resource', async () => {
    await rlc.create(rateLimitConfig('a'));
    const status = await rejection(rlc.replace('a', rateLimitConfig('a')));
    expect(status.code).toBe(422);
    expect(status.message).toBe(
      'RateLimitConfig.example.portcullis.dev "a" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it('answers a stale resourceVersion with 409 Conflict', async () => {
    const created = await rlc.create(rateLimitConfig('a'));
    await rlc.patch('a', { metadata: { labels: { x: 'y' } } });
    const status = await rejection(rlc.replace('a', created));
    expect(status).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(status.message).toBe(
      'Operation cannot be fulfilled on ratelimitconfigs.example.portcullis.dev "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('bumps generation for spec changes only, and ignores status on the main endpoint', async () => {
    const created = await rlc.create(rateLimitConfig('a'));
    const labelled = await rlc.patch('a', { metadata: { labels: { team: 'x' } } });
    expect(labelled.metadata.generation).toBe(1);
    const withStatus = await rlc.patchStatus('a', { status: { ruleCount: 2 } });
    expect(withStatus.metadata.generation).toBe(1);
    const replaced = await rlc.replace('a', {
      ...withStatus,
      spec: { ...(created['spec'] as object), mode: 'shadow' },
      status: {},
    });
    expect(replaced.metadata.generation).toBe(2);
    expect(replaced['status']).toEqual({ ruleCount: 2 });
  });

  it('changes nothing but status through /status', async () => {
    await rlc.create(rateLimitConfig('a'));
    const current = await rlc.get('a');
    const body = {
      ...current,
      metadata: { ...current.metadata, labels: { ignored: 'yes' } },
      spec: { domain: 'ignored' },
      status: { ruleCount: 1 },
    };
    const updated = await rlc.replaceStatus('a', body);
    expect(updated['status']).toEqual({ ruleCount: 1 });
    expect(updated['spec']).toEqual(current['spec']);
    expect(updated.metadata.labels).toBeUndefined();
    expect(updated.metadata.generation).toBe(1);
  });

  it('treats a no-op update as a read: same resourceVersion, no event', async () => {
    const created = await rlc.create(rateLimitConfig('a'));
    const before = server.hooks.events().length;
    const same = await rlc.replace('a', created);
    const patched = await rlc.patch('a', { spec: { mode: 'enforce' } });
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(patched.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(server.hooks.events()).toHaveLength(before);
  });
});

describe('patch', () => {
  it('enforces a resourceVersion carried in a merge patch', async () => {
    const created = await rlc.create(rateLimitConfig('a'));
    await rlc.patch('a', { metadata: { labels: { v: '1' } } });
    const stale = {
      metadata: { resourceVersion: created.metadata.resourceVersion, finalizers: ['x.dev/f'] },
    };
    expect(await rejection(rlc.patch('a', stale))).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('applies JSON patches, test operations included', async () => {
    await rlc.create(rateLimitConfig('a'));
    const ops = [
      { op: 'test', path: '/spec/mode', value: 'enforce' },
      { op: 'replace', path: '/spec/mode', value: 'shadow' },
    ];
    const patched = await rlc.patch('a', ops, PatchStrategy.JsonPatch);
    expect(patched['spec']).toMatchObject({ mode: 'shadow' });
    const failed = await rejection(
      rlc.patch('a', [{ op: 'test', path: '/spec/mode', value: 'enforce' }], PatchStrategy.JsonPatch),
    );
    expect(failed).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    });
  });

  it('rejects strategic merge patch on custom resources with 415', async () => {
    await rlc.create(rateLimitConfig('a'));
    const status = await rejection(
      rlc.patch('a', { spec: { mode: 'shadow' } }, PatchStrategy.StrategicMergePatch),
    );
    expect(status).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    expect(status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
    );
  });
});

describe('delete', () => {
  it('deletes at once without finalizers and answers with a Success Status', async () => {
    const created = await rlc.create(rateLimitConfig('a'));
    expect(await rlc.delete('a')).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'a', group: GROUP, kind: 'ratelimitconfigs', uid: created.metadata.uid },
    });
    expect(server.hooks.events().at(-1)).toMatchObject({ type: 'DELETED' });
  });

  it('holds an object with finalizers until they are removed', async () => {
    await rlc.create({
      ...rateLimitConfig('a'),
      metadata: { name: 'a', finalizers: ['example.dev/cleanup'] },
    });
    const deleting = (await rlc.delete('a')) as {
      metadata: { deletionTimestamp?: string; generation?: number };
    };
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(deleting.metadata.generation).toBe(2);
    expect(server.hooks.events().at(-1)).toMatchObject({ type: 'MODIFIED' });
    const again = (await rlc.delete('a')) as { metadata: { resourceVersion?: string } };
    expect(again.metadata.resourceVersion).toBe((await rlc.get('a')).metadata.resourceVersion);

    const added = await rejection(
      rlc.patch('a', { metadata: { finalizers: ['example.dev/cleanup', 'example.dev/late'] } }),
    );
    expect(added.message).toBe(
      'RateLimitConfig.example.portcullis.dev "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.dev/late"}',
    );

    await rlc.patch('a', { metadata: { finalizers: null } });
    expect(server.hooks.events().at(-1)).toMatchObject({ type: 'DELETED' });
    expect(await rejection(rlc.get('a'))).toMatchObject({ code: 404 });
  });
});

describe('list', () => {
  beforeEach(async () => {
    const labels: Record<string, Record<string, string>> = {
      a: { tier: 'edge', team: 'pay' },
      b: { tier: 'core', team: 'pay' },
      c: { tier: 'edge' },
      d: {},
    };
    for (const [name, l] of Object.entries(labels))
      await rlc.create({ ...rateLimitConfig(name), metadata: { name, labels: l } });
  });

  const names = async (query: Parameters<typeof rlc.list>[0]): Promise<string[]> =>
    (await rlc.list(query)).items.map((i) => i.metadata.name ?? '');

  it('filters by label selector', async () => {
    expect(await names({ labelSelector: 'tier=edge' })).toEqual(['a', 'c']);
    expect(await names({ labelSelector: 'tier==edge,team=pay' })).toEqual(['a']);
    expect(await names({ labelSelector: 'tier!=edge' })).toEqual(['b', 'd']);
    expect(await names({ labelSelector: 'tier in (core, edge)' })).toEqual(['a', 'b', 'c']);
    expect(await names({ labelSelector: 'tier notin (edge)' })).toEqual(['b', 'd']);
    expect(await names({ labelSelector: 'team' })).toEqual(['a', 'b']);
    expect(await names({ labelSelector: '!team' })).toEqual(['c', 'd']);
  });

  it('filters by metadata.name and metadata.namespace, and refuses other fields', async () => {
    expect(await names({ fieldSelector: 'metadata.name=b' })).toEqual(['b']);
    expect(await names({ fieldSelector: 'metadata.name!=b,metadata.namespace=default' })).toEqual([
      'a',
      'c',
      'd',
    ]);
    const status = await rejection(rlc.list({ fieldSelector: 'spec.domain=a' }));
    expect(status).toMatchObject({ code: 400, message: 'field label not supported: spec.domain' });
  });

  it('lists every namespace on the cluster-wide path', async () => {
    server.hooks.reset();
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'other' } } });
    await rlc.create(rateLimitConfig('one'));
    await rateLimitConfigs(kc, 'other').create(rateLimitConfig('two'));
    const api = kc.makeApiClient(CustomObjectsApi);
    const all = (await api.listClusterCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      plural: 'ratelimitconfigs',
    })) as {
      kind: string;
      items: { metadata: { namespace: string } }[];
    };
    expect(all.kind).toBe('RateLimitConfigList');
    expect(all.items.map((i) => i.metadata.namespace)).toEqual(['default', 'other']);
  });

  it('deletes a selected collection', async () => {
    await rlc.api.deleteCollectionNamespacedCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      plural: 'ratelimitconfigs',
      namespace: 'default',
      labelSelector: 'tier=edge',
    });
    expect(await names({})).toEqual(['b', 'd']);
  });

  it('pages with limit and continue, and expires tokens after compaction', async () => {
    const first = await rlc.list({ limit: 3 });
    expect(first.items.map((i) => i.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(first.metadata.remainingItemCount).toBe(1);
    const second = await rlc.list({ limit: 3, _continue: first.metadata.continue });
    expect(second.items.map((i) => i.metadata.name)).toEqual(['d']);
    expect(second.metadata.continue).toBeUndefined();
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    await rlc.create(rateLimitConfig('e'));
    server.hooks.compactHistory();
    expect(await rejection(rlc.list({ limit: 3, _continue: first.metadata.continue }))).toMatchObject({
      code: 410,
      reason: 'Expired',
    });
  });
});

describe('cluster-scoped and multi-version resources', () => {
  const edgeClasses = (version: string) => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const base = { group: GROUP, version, plural: 'edgeclasses' };
    return {
      create: async (body: object) =>
        (await api.createClusterCustomObject({ ...base, body })) as Record<string, unknown>,
      get: async (name: string) =>
        (await api.getClusterCustomObject({ ...base, name })) as Record<string, unknown>,
      patch: async (name: string, body: object) =>
        (await api.patchClusterCustomObject(
          { ...base, name, body },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )) as { metadata: { generation: number } },
    };
  };

  it('serves one stored object at every version and bumps generation for status without a subresource', async () => {
    const body = {
      apiVersion: `${GROUP}/v1`,
      kind: 'EdgeClass',
      metadata: { name: 'edge', namespace: 'ignored' },
      spec: { controllerName: 'portcullis.dev/op' },
    };
    const created = await edgeClasses('v1').create(body);
    expect(created['metadata']).not.toHaveProperty('namespace');
    expect((await edgeClasses('v1beta1').get('edge'))['apiVersion']).toBe(`${GROUP}/v1beta1`);
    const patched = await edgeClasses('v1').patch('edge', { status: { accepted: true } });
    expect(patched.metadata.generation).toBe(2);
  });
});
