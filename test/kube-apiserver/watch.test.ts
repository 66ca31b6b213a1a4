import {
  CustomObjectsApi,
  makeInformer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIXTURE_CRD_DIR, GROUP, rateLimitConfig, rateLimitConfigs } from './fixtures.js';
import { startKubeApiServer, type KubeApiServer } from './index.js';

let server: KubeApiServer;
let kc: KubeConfig;
let rlc: ReturnType<typeof rateLimitConfigs>;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  server = await startKubeApiServer({ crdDirs: [FIXTURE_CRD_DIR], bookmarkIntervalMs: 50 });
  kc = server.kubeConfig();
  rlc = rateLimitConfigs(kc);
});
afterAll(() => server.close());
beforeEach(() => server.hooks.reset());
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const COLLECTION = `/apis/${GROUP}/v1alpha1/ratelimitconfigs`;

/** A started informer over all namespaces, recording `verb name` for every callback. */
async function startInformer(): Promise<{ seen: string[]; errors: unknown[] }> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const list = async (): Promise<KubernetesListObject<KubernetesObject>> =>
    (await api.listClusterCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      plural: 'ratelimitconfigs',
    })) as KubernetesListObject<KubernetesObject>;
  const informer = makeInformer<KubernetesObject>(kc, COLLECTION, list);
  const seen: string[] = [];
  const errors: unknown[] = [];
  for (const verb of ['add', 'update', 'delete'] as const) {
    informer.on(verb, (obj) => seen.push(`${verb} ${obj.metadata?.name ?? ''}`));
  }
  informer.on('error', (err) => errors.push(err));
  await informer.start();
  stops.push(() => informer.stop());
  return { seen, errors };
}

describe('client-node informer', () => {
  it('lists, then reports adds, updates and deletes from the watch', async () => {
    await rlc.create(rateLimitConfig('before'));
    const { seen } = await startInformer();
    expect(seen).toEqual(['add before']);
    await rlc.create(rateLimitConfig('a'));
    await rlc.patch('a', { metadata: { labels: { x: 'y' } } });
    await rlc.delete('a');
    await vi.waitFor(() => expect(seen).toEqual(['add before', 'add a', 'update a', 'delete a']));
  });

  it('re-lists after a 410 and reports what it missed', async () => {
    await rlc.create(rateLimitConfig('a'));
    const { seen, errors } = await startInformer();
    await vi.waitFor(() => expect(server.hooks.openWatches()).toBe(1));
    server.hooks.pauseWatches();
    await rlc.delete('a');
    await rlc.create(rateLimitConfig('b'));
    server.hooks.dropWatches('graceful');
    server.hooks.compactHistory();
    server.hooks.resumeWatches();
    await vi.waitFor(() => expect(seen).toEqual(['add a', 'delete a', 'add b']));
    const watches = server.hooks.requests().filter((r) => r.url.includes('watch=true'));
    expect(watches).toHaveLength(3);
    expect(errors).toEqual([]);
  });

  it('re-lists after an HTTP 410 on the watch request too', async () => {
    server.hooks.setExpiredWatchAs('http');
    try {
      const { seen } = await startInformer();
      await vi.waitFor(() => expect(server.hooks.openWatches()).toBe(1));
      server.hooks.pauseWatches();
      await rlc.create(rateLimitConfig('b'));
      server.hooks.dropWatches('graceful');
      server.hooks.compactHistory();
      server.hooks.resumeWatches();
      await vi.waitFor(() => expect(seen).toEqual(['add b']));
      expect(server.hooks.requests().some((r) => r.url.includes('watch=true') && r.status === 410)).toBe(
        true,
      );
    } finally {
      server.hooks.setExpiredWatchAs('event');
    }
  });

  it('emits error and stops when the watch connection is cut', async () => {
    const { errors } = await startInformer();
    await vi.waitFor(() => expect(server.hooks.openWatches()).toBe(1));
    expect(server.hooks.dropWatches('abrupt')).toBe(1);
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(String(errors[0])).toContain('Premature close');
    expect(server.hooks.openWatches()).toBe(0);
  });
});

interface WatchEvent {
  type: string;
  object: {
    kind?: string;
    code?: number;
    message?: string;
    reason?: string;
    metadata?: { name?: string; resourceVersion?: string };
  };
}

/** Reads NDJSON watch events until `done` says so or the stream ends. */
async function readWatch(query: string, done: (events: WatchEvent[]) => boolean): Promise<WatchEvent[]> {
  const res = await fetch(`${server.url}${COLLECTION}?watch=true&${query}`);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const events: WatchEvent[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    while (!done(events)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffered += decoder.decode(chunk.value as Uint8Array, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) events.push(JSON.parse(line) as WatchEvent);
    }
  } finally {
    await reader.cancel();
  }
  return events;
}

describe('watch protocol', () => {
  it('sends ADDED for existing objects when no resourceVersion is given', async () => {
    await rlc.create(rateLimitConfig('a'));
    await rlc.create(rateLimitConfig('b'));
    const events = await readWatch('', (e) => e.length === 2);
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`)).toEqual(['ADDED a', 'ADDED b']);
  });

  it('replays history after a resourceVersion and answers a compacted one with 410', async () => {
    const a = await rlc.create(rateLimitConfig('a'));
    await rlc.patch('a', { metadata: { labels: { v: '2' } } });
    const events = await readWatch(
      `resourceVersion=${a.metadata.resourceVersion ?? ''}`,
      (e) => e.length === 1,
    );
    expect(events[0]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'a' } } });
    server.hooks.compactHistory();
    const expired = await readWatch(`resourceVersion=${a.metadata.resourceVersion ?? ''}`, () => false);
    expect(expired).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${a.metadata.resourceVersion ?? ''} (${server.hooks.revision() + 1})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('turns updates that leave or enter the label selector into DELETED and ADDED', async () => {
    await rlc.create({ ...rateLimitConfig('a'), metadata: { name: 'a', labels: { tier: 'edge' } } });
    const reading = readWatch('labelSelector=tier%3Dedge', (e) => e.length === 3);
    await vi.waitFor(() => expect(server.hooks.openWatches()).toBe(1));
    await rlc.patch('a', { metadata: { labels: { tier: 'core' } } });
    await rlc.create(rateLimitConfig('other'));
    await rlc.patch('a', { metadata: { labels: { tier: 'edge' } } });
    expect((await reading).map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`)).toEqual([
      'ADDED a',
      'DELETED a',
      'ADDED a',
    ]);
  });

  it('sends bookmarks when allowed, carrying the current resourceVersion', async () => {
    const events = await readWatch('allowWatchBookmarks=true', (e) => e.length === 1);
    expect(events[0]).toEqual({
      type: 'BOOKMARK',
      object: {
        kind: 'RateLimitConfig',
        apiVersion: `${GROUP}/v1alpha1`,
        metadata: { resourceVersion: String(server.hooks.revision()) },
      },
    });
  });

  it('ends the stream after timeoutSeconds', async () => {
    const started = Date.now();
    expect(await readWatch('timeoutSeconds=1', () => false)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
