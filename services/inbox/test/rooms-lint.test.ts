import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// The inbox's rooms are kept by the repository's own lint config (eslint.config.js, INBOX_ROOMS): planted
// imports from inside each room must fail it, and the tree as it is must pass. Only the import rule runs,
// without type information, so nothing here needs the planted files to exist.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: [tseslint.configs.disableTypeChecked],
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

/** The import specifiers lint refuses in `code` planted at `file` (relative to the repository). */
async function refusedImports(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  const messages = result?.messages ?? [];
  expect(messages.every((m) => m.ruleId === 'no-restricted-imports')).toBe(true);
  return messages.map((m) => /'([^']+)'/.exec(m.message)?.[1] ?? m.message);
}

const importing = (...specifiers: string[]): string => specifiers.map((s) => `import '${s}';\n`).join('');

describe('inbox rooms', () => {
  it('fails the CLI importing the server, the store or the worker, and passes the contract and delivery', async () => {
    const refused = await refusedImports(
      'services/inbox/src/cli/planted.ts',
      importing(
        '../app.js',
        '../store/types.js',
        '../worker/forwarder.js',
        '../contract/capture-json.js',
        '../delivery/deliver.js',
      ),
    );
    expect(refused).toEqual(['../app.js', '../store/types.js', '../worker/forwarder.js']);
  });

  it('fails the web inspector importing server internals, and passes the contract', async () => {
    const refused = await refusedImports(
      'services/inbox/web/src/components/planted.tsx',
      importing(
        '../../../src/accounts/access.js',
        '../../../src/store/types.js',
        '../../../src/contract/capture-filter.js',
        '../api.js',
      ),
    );
    expect(refused).toEqual(['../../../src/accounts/access.js', '../../../src/store/types.js']);
    expect(
      await refusedImports('services/inbox/web/src/planted.ts', importing('../../src/live/sse-route.js')),
    ).toEqual(['../../src/live/sse-route.js']);
  });

  it('fails the worker importing the server or the CLI, and passes what it shares with the server', async () => {
    const refused = await refusedImports(
      'services/inbox/src/worker/planted.ts',
      importing(
        '../context.js',
        '../live/sse-route.js',
        '../cli/cli-errors.js',
        '../app.js',
        '../store/types.js',
        '../forwarding-store/dead-letters.js',
        '../delivery/deliver.js',
        '../contract/backoff.js',
        '../settings.js',
      ),
    );
    expect(refused).toEqual(['../context.js', '../live/sse-route.js', '../cli/cli-errors.js', '../app.js']);
    expect(await refusedImports('services/inbox/src/worker-main.ts', importing('./app.js'))).toEqual([
      './app.js',
    ]);
  });

  it('fails the server importing the CLI, the inspector or the worker, but for the local forwarding part', async () => {
    expect(
      await refusedImports(
        'services/inbox/src/api/planted.ts',
        importing(
          '../cli/cli-errors.js',
          '../worker/forwarder.js',
          '../../web/src/api.js',
          '../delivery/deliver.js',
          '../web/web-routes.js',
        ),
      ),
    ).toEqual(['../cli/cli-errors.js', '../worker/forwarder.js', '../../web/src/api.js']);
    expect(
      await refusedImports(
        'services/inbox/src/planted.ts',
        importing('./worker/forwarder.js', './worker/local-forwarding-parts.js', './cli/main.js'),
      ),
    ).toEqual(['./worker/forwarder.js', './cli/main.js']);
  });

  it('fails live/, export/ and search/ reaching up into api/', async () => {
    for (const room of ['live', 'export', 'search']) {
      expect(
        await refusedImports(
          `services/inbox/src/${room}/planted.ts`,
          importing('../api/endpoint-routes.js', '../accounts/access.js'),
        ),
      ).toEqual(['../api/endpoint-routes.js']);
    }
  });

  it('keeps the contract a leaf, and delivery and the stores below the programs', async () => {
    expect(
      await refusedImports('services/inbox/src/contract/planted.ts', importing('../store/types.js')),
    ).toEqual(['../store/types.js']);
    expect(
      await refusedImports(
        'services/inbox/src/delivery/planted.ts',
        importing('../worker/circuit-breaker.js', '../contract/capture-records.js'),
      ),
    ).toEqual(['../worker/circuit-breaker.js']);
    expect(
      await refusedImports(
        'services/inbox/src/store/planted.ts',
        importing('../accounts/access.js', '../errors.js'),
      ),
    ).toEqual(['../accounts/access.js']);
    expect(
      await refusedImports(
        'services/inbox/src/forwarding-store/planted.ts',
        importing('../worker/forwarder.js', '../store/redis.js'),
      ),
    ).toEqual(['../worker/forwarder.js']);
  });

  it('passes the inbox as it is', async () => {
    const results = await eslint.lintFiles(['services/inbox/src', 'services/inbox/web/src']);
    const refused = results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`));
    expect(refused).toEqual([]);
  });
});
