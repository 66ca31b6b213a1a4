import type { Scenario } from './scenarios.js';

/** The warm-up run of the tool before each scenario's measured runs. */
export const WARMUP_MS = 1000;
/**
 * Added to the warm-up of a server's first scenario on each protocol: a fresh Node process, or a protocol
 * path it has not served yet, runs unoptimised code for seconds, and its first measured run showed it.
 */
export const FIRST_LOAD_WARMUP_MS = 10000;

/** Each scenario with its warm-up, in order: longer for the first of its server on its protocol. */
export function withWarmups(scenarios: readonly Scenario[]): Array<{ scenario: Scenario; warmupMs: number }> {
  const served = new Set<string>();
  return scenarios.map((scenario) => {
    const path = `${scenario.server}\n${scenario.load.protocol}`;
    const warmupMs = served.has(path) ? WARMUP_MS : WARMUP_MS + FIRST_LOAD_WARMUP_MS;
    served.add(path);
    return { scenario, warmupMs };
  });
}
