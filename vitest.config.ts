import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
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
          ],
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
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
