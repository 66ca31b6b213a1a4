import { describe, expect, it } from 'vitest';
import { API_VERSION } from '@portcullis/config';
import type { Resource } from './resources.js';
import { ResourceStore } from './store.js';

function rlc(
  o: { generation?: number; uid?: string; spec?: unknown; status?: Resource['status'] } = {},
): Resource {
  return {
    apiVersion: API_VERSION,
    kind: 'RateLimitConfig',
    metadata: {
      name: 'web',
      namespace: 'team',
      uid: o.uid ?? 'uid-1',
      generation: o.generation ?? 1,
      creationTimestamp: '2026-11-27T00:00:00Z',
    },
    spec: o.spec ?? { domain: 'web', descriptors: [] },
    ...(o.status ? { status: o.status } : {}),
  };
}

describe('ResourceStore', () => {
  it('tells of a new status alone apart from a new spec, generation or object', () => {
    const store = new ResourceStore();
    let changes = 0;
    const statuses: Resource[] = [];
    store.onChange(() => changes++);
    store.onStatusChange((r) => statuses.push(r));

    store.upsert(rlc());
    expect(changes).toBe(1);

    const written = rlc({ status: { observedGeneration: 1, conditions: [] } });
    store.upsert(written);
    expect(changes).toBe(1);
    expect(store.get('RateLimitConfig', 'team/web')).toBe(written);
    expect(statuses).toEqual([written]);

    store.upsert(rlc({ generation: 2, spec: { domain: 'web2', descriptors: [] } }));
    expect(changes).toBe(2);
    store.upsert(rlc({ generation: 2, spec: { domain: 'web3', descriptors: [] } }));
    expect(changes).toBe(3);
    store.upsert(rlc({ generation: 2, uid: 'uid-2', spec: { domain: 'web3', descriptors: [] } }));
    expect(changes).toBe(4);
    expect(statuses).toHaveLength(1);
  });
});
