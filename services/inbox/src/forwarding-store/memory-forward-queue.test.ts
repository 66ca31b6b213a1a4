import type { ForwardTarget } from '@portcullis/config';
import { quietLog } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory.js';
import type { CaptureInput } from '../contract/capture-records.js';
import type { ManagedEndpoint } from '../store/types.js';
import { createMemoryForwardQueue } from './memory-forward-queue.js';

const TARGET: ForwardTarget = {
  url: 'http://target.example/hooks',
  pathMode: 'append',
  enabled: true,
  timeoutSeconds: 10,
  maxAttempts: 3,
  initialDelaySeconds: 1,
  maxDelaySeconds: 10,
  maxConcurrent: 32,
};

const managed = (id: string, forward: ForwardTarget[] = [TARGET]): ManagedEndpoint => ({
  id,
  name: id,
  resource: `default/${id}`,
  retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
  forward,
});

const input = (path: string): CaptureInput => ({
  receivedAt: 0,
  method: 'POST',
  url: `/api/hook/x${path}`,
  nestedPath: path,
  httpVersion: '1.1',
  rawHeaders: [],
  remoteAddress: '127.0.0.1',
  body: Buffer.from(path),
  bodySha256: '',
});

function setUp() {
  let clock = 1_000_000;
  const now = (): number => clock;
  const store = createMemoryStore({ now });
  const queue = createMemoryForwardQueue({ store, log: quietLog, now });
  const append = async (id: string, path: string, maxRequests = 100): Promise<string> => {
    const requestId = await store.appendCapture(id, input(path), maxRequests);
    if (requestId === undefined) throw new Error(`no endpoint ${id}`);
    return requestId;
  };
  const read = async (ids: string[], count = 10) =>
    (await queue.readNew(ids, { count, blockMs: 10 })).map((q) => [q.endpointId, q.capture.nestedPath]);
  return { store, queue, append, read, advance: (ms: number) => (clock += ms) };
}

describe('memory forward queue', () => {
  it('forwards from the sync that enabled a target: captures from before it are not read, later ones are, once', async () => {
    const { store, append, read } = setUp();
    await store.syncManagedEndpoints([managed('a', [{ ...TARGET, enabled: false }])]);
    await append('a', '/before');
    await store.syncManagedEndpoints([managed('a')]);
    await append('a', '/after-1');
    await append('a', '/after-2');
    expect(await read(['a'])).toEqual([
      ['a', '/after-1'],
      ['a', '/after-2'],
    ]);
    expect(await read(['a'])).toEqual([]);
  });

  it('reads at most count captures over several endpoints, starting from each in turn', async () => {
    const { store, append, read } = setUp();
    await store.syncManagedEndpoints([managed('a'), managed('b')]);
    await append('a', '/a1');
    await append('b', '/b1');
    await append('a', '/a2');
    await append('a', '/a3');
    expect(await read(['a', 'b'], 2)).toEqual([
      ['a', '/a1'],
      ['a', '/a2'],
    ]);
    expect(await read(['a', 'b'], 2)).toEqual([
      ['b', '/b1'],
      ['a', '/a3'],
    ]);
  });

  it('wakes a waiting read when a capture arrives', async () => {
    const { store, queue, append } = setUp();
    await store.syncManagedEndpoints([managed('a')]);
    const reading = queue.readNew(['a'], { count: 10, blockMs: 60_000 });
    await append('a', '/late');
    expect((await reading).map((q) => q.capture.nestedPath)).toEqual(['/late']);
    queue.close();
  });

  it('keeps a capture pending until acknowledged, and hands it out again once idle (not while touched)', async () => {
    const { store, queue, append, read, advance } = setUp();
    await store.syncManagedEndpoints([managed('a')]);
    const first = await append('a', '/1');
    const second = await append('a', '/2');
    await read(['a']);
    expect(await queue.backlog(['a'])).toEqual({ pending: 2, lag: 0 });
    await queue.ack('a', first);
    advance(200);
    await queue.touch('a', [second]);
    advance(200);
    expect(await queue.claimStale('a', { minIdleMs: 300, count: 10 })).toEqual([]);
    advance(100);
    const claimed = await queue.claimStale('a', { minIdleMs: 300, count: 10 });
    expect(claimed.map((q) => q.capture.id)).toEqual([second]);
    // claimed again is as good as read: idle from now
    expect(await queue.claimStale('a', { minIdleMs: 300, count: 10 })).toEqual([]);
    await queue.ack('a', second);
    expect(await queue.backlog(['a'])).toEqual({ pending: 0, lag: 0 });
  });

  it('counts captures not yet read as lag, and drops pending ones trimmed meanwhile', async () => {
    const { store, queue, append, read, advance } = setUp();
    await store.syncManagedEndpoints([managed('a')]);
    await append('a', '/1');
    await read(['a']);
    await append('a', '/2');
    await append('a', '/3', 2); // trims /1, still pending
    expect(await queue.backlog(['a'])).toEqual({ pending: 1, lag: 2 });
    advance(1000);
    expect(await queue.claimStale('a', { minIdleMs: 300, count: 10 })).toEqual([]);
    expect(await queue.backlog(['a'])).toEqual({ pending: 0, lag: 2 });
  });

  it('ends a waiting read, and refuses later ones, once reading stops', async () => {
    const { store, queue } = setUp();
    await store.syncManagedEndpoints([managed('a')]);
    const reading = queue.readNew(['a'], { count: 10, blockMs: 60_000 });
    queue.stopReading();
    await expect(reading).rejects.toThrow('inbox forward queue: stopped reading');
    await expect(queue.readNew(['a'], { count: 10, blockMs: 10 })).rejects.toThrow(/stopped reading/);
  });

  it('drops the group with its endpoint, and keeps it while a removed resource may come back', async () => {
    const { store, queue, append, read } = setUp();
    await store.syncManagedEndpoints([managed('a')]);
    await append('a', '/1');
    await store.syncManagedEndpoints([]);
    await store.syncManagedEndpoints([managed('a')]);
    expect(await read(['a'])).toEqual([['a', '/1']]);
    await store.deleteEndpoint('a');
    expect(store.forwardGroups.has('a')).toBe(false);
    await queue.ensureGroups(['a']);
    expect(store.forwardGroups.get('a')?.lastReadId).toBe('0-0');
  });
});
