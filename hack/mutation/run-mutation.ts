// `npm run mutation [-- <group> …] [--force]`: Stryker over each named group (all when none is named), one
// after the other. Incremental against this machine's last results (reports/mutation/incremental/<group>.json,
// git-ignored), so a re-run after a small change tests only the mutants it touches; `--force` tests every mutant again (the weekly
// workflow does, since a change outside the mutated and test files is not seen by the incremental diff).
// A group that scores below its `breakAt` sets exit code 1.
import { Stryker } from '@stryker-mutator/core';
import type { MutantResult, PartialStrykerOptions } from '@stryker-mutator/api/core';
import {
  MUTATION_GROUPS,
  MUTATION_TESTS_ENV,
  type MutationGroup,
  type MutationGroupName,
} from './mutation-groups.js';

function isGroupName(name: string): name is MutationGroupName {
  return Object.hasOwn(MUTATION_GROUPS, name);
}

function strykerOptions(name: string, group: MutationGroup, force: boolean): PartialStrykerOptions {
  return {
    testRunner: 'vitest',
    vitest: { configFile: 'hack/mutation/vitest.config.ts', dir: group.testDir, related: true },
    coverageAnalysis: 'perTest',
    mutate: [...group.mutate],
    // the machine is shared: one test process, and a timeout that tolerates a loaded core
    concurrency: 1,
    timeoutFactor: 3,
    timeoutMS: 10_000,
    // a static mutant (a module-level constant) re-runs every test of its file, ~three quarters of the run
    ignoreStatic: true,
    incremental: true,
    incrementalFile: `reports/mutation/incremental/${name}.json`,
    force,
    ignorePatterns: ['/test-artifacts', '/.cache', '/dist', '/.tmp', '/.portcullis'],
    reporters: ['clear-text', 'progress', 'html'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    thresholds: { high: 90, low: 75, break: group.breakAt },
  };
}

/** Stryker's mutation score: detected mutants over the valid ones (compile errors and ignored ones left out). */
function describeScore(results: readonly MutantResult[]): string {
  const count = (status: MutantResult['status']) => results.filter((r) => r.status === status).length;
  const detected = count('Killed') + count('Timeout');
  const undetected = count('Survived') + count('NoCoverage');
  const score = detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected);
  return `${score.toFixed(2)}% (killed ${count('Killed')}, timeout ${count('Timeout')}, survived ${count('Survived')}, no coverage ${count('NoCoverage')})`;
}

const args = process.argv.slice(2);
const force = args.includes('--force');
const named = args.filter((a) => a !== '--force');
const unknown = named.filter((n) => !isGroupName(n));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown mutation group ${unknown.map((n) => `"${n}"`).join(', ')}: expected one of ${Object.keys(MUTATION_GROUPS).join(', ')}\n`,
  );
  process.exit(2);
}
const names = (named.length > 0 ? named : Object.keys(MUTATION_GROUPS)).filter(isGroupName);
const scores: string[] = [];
for (const name of names) {
  const group: MutationGroup = MUTATION_GROUPS[name];
  // read by hack/mutation/vitest.config.ts in the test runner processes Stryker starts
  process.env[MUTATION_TESTS_ENV] = JSON.stringify(group.tests ?? ['**/*.test.ts']);
  const results = await new Stryker(strykerOptions(name, group, force)).runMutationTest();
  scores.push(`${name}: ${describeScore(results)}`);
}
process.stdout.write(`${scores.join('\n')}\n`);
