import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Stryker's sandboxes (hack/mutation) hold a copy of every test file
const exclude = [...configDefaults.exclude, '**/.stryker-tmp/**', 'reports/**'];

export default defineConfig({
  test: {
    // Vitest's default, one less than the cores, is a single worker on a 2-core machine; most test files
    // wait on sockets, servers and timers, so two share two cores well.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'lib/*/src/**/*.test.ts',
            'services/*/src/**/*.test.ts',
            'services/*/web/src/**/*.test.ts',
            'operator/src/**/*.test.ts',
            'bench/**/*.test.ts',
            'hack/**/*.test.ts',
          ],
          exclude,
        },
      },
      {
        test: {
          name: 'integration',
          globalSetup: ['hack/peers/global-setup.ts'],
          include: [
            'lib/*/test/**/*.test.ts',
            'services/*/test/**/*.test.ts',
            'operator/test/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
