import { describe, expect, it } from 'vitest';
import { canonical, comparableGrpc, resetsDiffer } from './compare.js';
import { usePair } from './pair.js';
import { descriptorsOf, readUpstreamConfigFiles } from './upstream-files.js';

// Every configuration file in upstream's module: loaded by both or refused by both, and where loaded, the
// same decisions for a request at every rule, asked three times.

const FILES = readUpstreamConfigFiles();
const ASKED = 3;
const outcomes = new Map<string, 'loaded' | 'refused'>();

describe("differential: upstream's own configuration files", () => {
  const pair = usePair({ files: {}, env: { LIMIT_RESPONSE_HEADERS_ENABLED: 'true' } });

  it('finds the files', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(20);
  });

  for (const file of FILES) {
    it(file.name, async () => {
      const outcome = await pair.writeConfigFile('under-test.yaml', file.text);
      expect(outcome.ours).toBe(outcome.upstream);
      outcomes.set(file.name, outcome.upstream);
      if (outcome.upstream === 'refused') return;
      const { domain, descriptors } = descriptorsOf(file.text);
      const found: string[] = [];
      for (const entries of descriptors) {
        const request = {
          domain,
          descriptors: [{ entries: entries.map(([key, value]) => ({ key, value })) }],
        };
        for (let i = 0; i < ASKED; i++) {
          const answers = await pair.ask(request);
          const [u, o] = [comparableGrpc(answers.upstream), comparableGrpc(answers.ours)];
          if (canonical(u.decision) !== canonical(o.decision) || resetsDiffer(u.resets, o.resets))
            found.push(`${JSON.stringify(entries)} #${i}: upstream ${canonical(u)} ours ${canonical(o)}`);
        }
      }
      expect(found).toEqual([]);
    });
  }

  it('exercised both outcomes: the files upstream loads and those it refuses', () => {
    const loaded = [...outcomes.values()].filter((o) => o === 'loaded').length;
    expect(outcomes.size).toBe(FILES.length);
    expect(loaded).toBeGreaterThanOrEqual(10);
    expect(FILES.length - loaded).toBeGreaterThanOrEqual(10);
  });
});
