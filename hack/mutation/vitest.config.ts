import { configDefaults, defineConfig } from 'vitest/config';

// What Stryker's Vitest runner starts: run-mutation.ts points `dir` at one group's src/ folder, which holds
// unit tests only, so no global setup and no peers. Patterns are relative to that folder.
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: [...configDefaults.exclude, '**/.stryker-tmp/**'],
    // the real 128 MiB scrypt of password-hasher.test.ts takes seconds when other runs share the cores
    testTimeout: 60_000,
  },
});
