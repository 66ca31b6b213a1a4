import { API_VERSION, type RateLimitConfig } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import type { Resource } from '../resources.js';
import { ResourceStore } from '../store.js';
import { KindReconciler } from './reconcile-kind.js';
import { HANDLERS } from './translation.js';
import type { KindHandler } from './types.js';

function rlc(name: string, requestsPerUnit: number, generation = 1): Resource {
  return {
    apiVersion: API_VERSION,
    kind: 'RateLimitConfig',
    metadata: {
      name,
      namespace: 'team',
      uid: `uid-${name}`,
      generation,
      creationTimestamp: '2026-11-27T00:00:00Z',
    },
    spec: {
      domain: name,
      descriptors: [{ key: 'user', rate_limit: { unit: 'minute', requests_per_unit: requestsPerUnit } }],
    },
  };
}

/** The RateLimitConfig handler, counting the resources it validates and encodes. */
function countingHandler(): { handler: KindHandler<RateLimitConfig>; parsed: string[]; encoded: string[] } {
  const real = HANDLERS.RateLimitConfig;
  const parsed: string[] = [];
  const encoded: string[] = [];
  return {
    parsed,
    encoded,
    handler: {
      ...real,
      parse: (name, spec) => (parsed.push(name), real.parse(name, spec)),
      encode: (r, model, secrets) => (encoded.push(r.metadata.name), real.encode(r, model, secrets)),
    },
  };
}

describe('KindReconciler', () => {
  it('validates and encodes again only the resource whose generation moved', () => {
    const { handler, parsed, encoded } = countingHandler();
    const reconciler = new KindReconciler(handler);
    const store = new ResourceStore();
    for (const name of ['a', 'b', 'c']) store.upsert(rlc(name, 1));
    const first = reconciler.reconcile(store.list('RateLimitConfig'), store);
    expect([parsed.length, encoded.length]).toEqual([3, 3]);

    store.upsert(rlc('b', 2, 2));
    const second = reconciler.reconcile(store.list('RateLimitConfig'), store);
    expect(parsed.slice(3)).toEqual(['team/b']);
    expect(encoded.slice(3)).toEqual(['b']);
    expect(second.resources.find((r) => r.name === 'team/a')?.value).toBe(
      first.resources.find((r) => r.name === 'team/a')?.value,
    );
    expect(second.resources.find((r) => r.name === 'team/b')?.value).not.toEqual(
      first.resources.find((r) => r.name === 'team/b')?.value,
    );
  });

  it('forgets a deleted resource, so one created again under its name is validated afresh', () => {
    const { handler, parsed } = countingHandler();
    const reconciler = new KindReconciler(handler);
    reconciler.reconcile([rlc('a', 1)], new ResourceStore());
    reconciler.reconcile([], new ResourceStore());
    const again = reconciler.reconcile([rlc('a', 5)], new ResourceStore());
    expect(parsed).toEqual(['team/a', 'team/a']);
    expect(again.outcomes[0]).toMatchObject({ rejection: undefined, servedGeneration: 1 });
  });

  it('lets an error other than an invalid spec through', () => {
    const reconciler = new KindReconciler({
      ...HANDLERS.RateLimitConfig,
      parse: () => {
        throw new TypeError('a bug');
      },
    });
    expect(() => reconciler.reconcile([rlc('a', 1)], new ResourceStore())).toThrow('a bug');
  });

  it('remembers an invalid generation as rejected without validating it again', () => {
    const { handler, parsed } = countingHandler();
    const reconciler = new KindReconciler(handler);
    const bad = { ...rlc('a', 1, 2), spec: { domain: 'a', descriptors: [{ key: '' }] } };
    reconciler.reconcile([rlc('a', 1)], new ResourceStore());
    const once = reconciler.reconcile([bad], new ResourceStore());
    const twice = reconciler.reconcile([bad], new ResourceStore());
    expect(parsed).toHaveLength(2);
    expect(once.outcomes[0]).toMatchObject({ rejection: { reason: 'Invalid' }, servedGeneration: 1 });
    expect(twice.outcomes[0]).toEqual(once.outcomes[0]);
  });
});
