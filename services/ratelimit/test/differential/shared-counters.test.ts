import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { canonical, comparableGrpc } from './compare.js';
import { usePair, type Side } from './pair.js';

// Replacing upstream by ours replica by replica: both on one store with the same CACHE_KEY_PREFIX, requests
// alternating between them count exactly as one service alone would.

const CONFIG = `domain: rolling
descriptors:
  - key: user
    rate_limit: { unit: hour, requests_per_unit: 4 }
  - key: path
    value: /login
    descriptors:
      - key: user
        rate_limit: { unit: day, requests_per_unit: 2 }
  - key: burst
    rate_limit: { unit: minute, requests_per_unit: 10 }
`;

const d = (...entries: Array<[string, string]>): object => ({
  entries: entries.map(([key, value]) => ({ key, value })),
});

/** A request sequence, every entry value made unique by `run` so that each sequence has fresh counters. */
const sequence = (run: string): object[] => [
  ...Array.from({ length: 6 }, () => ({ descriptors: [d(['user', `u-${run}`])] })),
  ...Array.from({ length: 3 }, () => ({ descriptors: [d(['path', '/login'], ['user', `u-${run}`])] })),
  { hitsAddend: 4, descriptors: [d(['burst', `b-${run}`])] },
  { descriptors: [{ ...d(['burst', `b-${run}`]), hitsAddend: 0 }] },
  { hitsAddend: 5, descriptors: [d(['burst', `b-${run}`])] },
  { descriptors: [d(['burst', `b-${run}`])] },
  { descriptors: [d(['burst', `b-${run}`]), d(['user', `u-${run}`])] },
];

/** Longer than one `run` takes, memcached's pauses included. */
const RUN_BOUND_MS = 5_000;

/**
 * Waits out the end of the current minute when a run could straddle it: the `burst` counter is per minute,
 * and a run whose requests fall on both sides of the edge starts that count afresh halfway.
 */
async function clearOfMinuteEdge(): Promise<void> {
  const toEdge = 60_000 - (Date.now() % 60_000);
  if (toEdge < RUN_BOUND_MS) await sleep(toEdge + 100);
}

for (const store of ['shared-redis', 'shared-memcached'] as const) {
  describe(`differential: counters on one ${store.slice('shared-'.length)} store`, () => {
    const pair = usePair({
      files: { 'rolling.yaml': CONFIG },
      env: { CACHE_KEY_PREFIX: 'rolling_' },
      store,
    });

    const run = async (label: string, sideOf: (i: number) => Side): Promise<string[]> => {
      const decisions: string[] = [];
      await clearOfMinuteEdge();
      for (const [i, request] of sequence(label).entries()) {
        decisions.push(
          canonical(comparableGrpc(await pair.askOne(sideOf(i), { domain: 'rolling', ...request })).decision),
        );
        // memcached counts in the background after answering, upstream's way and ours
        if (store === 'shared-memcached') await sleep(50);
      }
      return decisions;
    };

    it('alternating between upstream and ours counts as upstream alone and as ours alone', async () => {
      const upstreamAlone = await run('upstream-alone', () => 'upstream');
      const oursAlone = await run('ours-alone', () => 'ours');
      const alternating = await run('alternating', (i) => (i % 2 === 0 ? 'upstream' : 'ours'));
      const otherWay = await run('other-way', (i) => (i % 2 === 0 ? 'ours' : 'upstream'));
      expect(oursAlone).toEqual(upstreamAlone);
      expect(alternating).toEqual(upstreamAlone);
      expect(otherWay).toEqual(upstreamAlone);
      expect(upstreamAlone.filter((x) => x.includes('"OVER_LIMIT"')).length).toBeGreaterThan(2);
    });
  });
}
