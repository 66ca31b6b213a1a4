import { configDefaults, defineConfig } from 'vitest/config';
import { MUTATION_TESTS_ENV } from './mutation-groups.js';

// What Stryker's Vitest runner starts: run-mutation.ts points `dir` at one group's test folder and names its
// test files (relative to that folder) in the environment. No global setup: the unit-test groups need no
// peers, and the one group on a real API server needs them built beforehand (npm run peers).
export default defineConfig({
  test: {
    include: JSON.parse(process.env[MUTATION_TESTS_ENV] ?? '["**/*.test.ts"]') as string[],
    exclude: [...configDefaults.exclude, '**/.stryker-tmp/**'],
    // the real 128 MiB scrypt of password-hasher.test.ts takes seconds when other runs share the cores
    testTimeout: 60_000,
    // etcd and kube-apiserver start in a beforeAll, for each mutant
    hookTimeout: 180_000,
  },
});
