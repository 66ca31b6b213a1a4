import { fuzzScale, fuzzSeed } from '@portcullis/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseArb, caseYaml } from './arbitraries.js';
import { canonical, comparableGrpc, comparableJson, resetsDiffer } from './compare.js';
import { usePair } from './pair.js';

// Generated rule trees and request sequences: both load a rule set or both refuse it, and where loaded,
// every request gets the same answer from both, over gRPC and over /json.

const SEED = fuzzSeed();
const RUNS = Math.round(100 * fuzzScale());

const VARIANTS: Array<{ name: string; env: Record<string, string>; statistics?: RegExp }> = [
  {
    name: 'headers and metadata',
    env: { LIMIT_RESPONSE_HEADERS_ENABLED: 'true', RESPONSE_DYNAMIC_METADATA: 'true' },
  },
  {
    name: 'stop increments when over, local cache, near limit at half',
    // near_limit and over_limit (so shadow_mode) of a descriptor held back differ on purpose
    // (peer-differences.test.ts)
    statistics: /\.(near_limit|over_limit|shadow_mode)$/,
    env: {
      STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true',
      LOCAL_CACHE_SIZE_IN_BYTES: '1048576',
      NEAR_LIMIT_RATIO: '0.5',
    },
  },
];

for (const variant of VARIANTS)
  describe(`differential: generated rule sets and requests, ${variant.name}`, () => {
    const pair = usePair({ files: {}, env: variant.env });

    it(
      `${RUNS} cases from seed ${SEED}`,
      async () => {
        let run = 0;
        let loaded = 0;
        await fc.assert(
          fc.asyncProperty(caseArb, async (c) => {
            const domain = `gen-${++run}-${c.domainTail}`;
            const outcome = await pair.writeConfigFile('generated.yaml', caseYaml(domain, c));
            expect(outcome.ours, caseYaml(domain, c)).toBe(outcome.upstream);
            if (outcome.upstream === 'refused') return;
            loaded++;
            for (const [i, request] of c.requests.entries()) {
              const transport = i % 2 === 0 ? 'grpc' : 'json';
              const body = { domain, ...request };
              const [u, o] =
                transport === 'grpc'
                  ? await pair.ask(body).then((a) => [comparableGrpc(a.upstream), comparableGrpc(a.ours)])
                  : await pair.askJson(JSON.stringify(body)).then((a) => {
                      const [ju, jo] = [comparableJson(a.upstream), comparableJson(a.ours)];
                      return [
                        ju.comparable ?? { decision: { error: { code: ju.status } }, resets: [] },
                        jo.comparable ?? { decision: { error: { code: jo.status } }, resets: [] },
                      ];
                    });
              const same =
                canonical(u?.decision) === canonical(o?.decision) &&
                !resetsDiffer(u?.resets ?? [], o?.resets ?? []);
              expect(same, `${transport} request #${i}: upstream ${canonical(u)} ours ${canonical(o)}`).toBe(
                true,
              );
            }
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
        // the generator is worth little if it mostly makes rule sets both refuse
        expect(loaded).toBeGreaterThan(RUNS / 2);
      },
      300_000 * fuzzScale(),
    );

    it('counted the same statistics', async () => {
      const counters = await pair.counters();
      const rules = (m: Map<string, number>): Record<string, number> =>
        Object.fromEntries(
          [...m]
            .filter(
              ([k, v]) =>
                k.startsWith('ratelimit.service.rate_limit.') && v !== 0 && !variant.statistics?.test(k),
            )
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        );
      expect(rules(counters.ours)).toEqual(rules(counters.upstream));
    });
  });
