import { quietLog } from '@portcullis/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createNodeSource } from './memcached-nodes.js';

describe('memcached nodes', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sorts a fixed list, so every replica hashes keys alike', async () => {
    const nodes = createNodeSource({ hostPorts: ['b:2', 'a:1'], srv: '', refreshMs: 0, log: quietLog });
    expect(await nodes.current()).toEqual(['a:1', 'b:2']);
  });

  it('resolves an SRV record and reports a changed list on refresh', async () => {
    const answers = [
      [
        { name: 'mc-2.local', port: 11211 },
        { name: 'mc-1.local', port: 11211 },
      ],
      [
        { name: 'mc-1.local', port: 11211 },
        { name: 'mc-2.local', port: 11211 },
      ],
      [{ name: 'mc-3.local', port: 11212 }],
    ];
    const asked: string[] = [];
    const nodes = createNodeSource({
      hostPorts: [],
      srv: '_memcache._tcp.local',
      refreshMs: 1000,
      log: quietLog,
      resolveSrv: (name) => (asked.push(name), Promise.resolve(answers.shift() ?? [])),
    });
    const initial = await nodes.current();
    expect(initial).toEqual(['mc-1.local:11211', 'mc-2.local:11211']);
    const changes: string[][] = [];
    nodes.watch(initial, (n) => changes.push(n));
    await vi.advanceTimersByTimeAsync(1000);
    expect(changes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(changes).toEqual([['mc-3.local:11212']]);
    nodes.close();
    expect(asked).toEqual(['_memcache._tcp.local', '_memcache._tcp.local', '_memcache._tcp.local']);
  });

  it('fails when the SRV record lists no node', async () => {
    const nodes = createNodeSource({
      hostPorts: [],
      srv: '_none._tcp.local',
      refreshMs: 0,
      log: quietLog,
      resolveSrv: () => Promise.resolve([]),
    });
    await expect(nodes.current()).rejects.toThrow('SRV record _none._tcp.local lists no memcached node');
  });
});
