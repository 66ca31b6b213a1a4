import { describe, expect, it } from 'vitest';
import { CASES, caseFile } from './cases.js';
import { canonical, comparableGrpc, comparableJson, resetsDiffer, type Comparable } from './compare.js';
import { usePair } from './pair.js';

const VARIANTS: Array<{ name: string; env: Record<string, string> }> = [
  {
    name: 'headers and metadata',
    env: { LIMIT_RESPONSE_HEADERS_ENABLED: 'true', RESPONSE_DYNAMIC_METADATA: 'true' },
  },
  { name: 'SHADOW_MODE', env: { SHADOW_MODE: 'true', NEAR_LIMIT_RATIO: '0.5' } },
];

function differences(label: string, a: Comparable | undefined, b: Comparable | undefined): string[] {
  const out: string[] = [];
  if (canonical(a?.decision) !== canonical(b?.decision))
    out.push(`${label}: upstream ${canonical(a?.decision)} ours ${canonical(b?.decision)}`);
  else if (a && b && resetsDiffer(a.resets, b.resets))
    out.push(`${label}: resets upstream ${a.resets.join(',')} ours ${b.resets.join(',')}`);
  return out;
}

for (const variant of VARIANTS) {
  describe(`differential: hand cases, ${variant.name}`, () => {
    const files: Record<string, string> = {};
    for (const c of CASES) {
      files[`${c.name}.yaml`] = caseFile(c.name, c);
      files[`${c.name}-json.yaml`] = caseFile(`${c.name}-json`, c);
    }
    const pair = usePair({ files, env: variant.env });

    for (const c of CASES) {
      it(c.name, async () => {
        const found: string[] = [];
        for (const [i, request] of c.requests.entries()) {
          const grpc = await pair.ask({ domain: c.name, ...request });
          found.push(...differences(`grpc #${i}`, comparableGrpc(grpc.upstream), comparableGrpc(grpc.ours)));
          const json = await pair.askJson(JSON.stringify({ domain: `${c.name}-json`, ...request }));
          const [u, o] = [comparableJson(json.upstream), comparableJson(json.ours)];
          if (u.status !== o.status) found.push(`json #${i}: status upstream ${u.status} ours ${o.status}`);
          else found.push(...differences(`json #${i}`, u.comparable, o.comparable));
        }
        expect(found.slice(0, 4)).toEqual([]);
      });
    }

    it('answers /healthcheck as upstream does', async () => {
      const answers = await pair.get('/healthcheck');
      expect(answers.ours).toEqual(answers.upstream);
    });

    it('counts the same statistics', async () => {
      const counters = await pair.counters();
      const rule = (m: Map<string, number>): Record<string, number> =>
        Object.fromEntries(
          [...m]
            .filter(([k, v]) => k.startsWith('ratelimit.service.') && v !== 0)
            .sort(([a], [b]) => (a < b ? -1 : 1)),
        );
      expect(rule(counters.ours)).toEqual(rule(counters.upstream));
    });
  });
}
