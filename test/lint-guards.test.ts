import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The import guards of eslint.config.js, proved on planted files linted with the repo's own config: a cycle,
// a deep import into another package's src/ and a path to another package's entry must fail. The cycle and
// restricted-path rules need the TypeScript resolver (without it no import resolves, so no cycle and no
// restricted path is ever seen), so this fails if it is taken away.
// The files are planted inside the folders tsconfig.json covers, as the type-aware rules need them in the project.

const repo = join(import.meta.dirname, '..');
const folder = `lint-guards-planted-${String(process.pid)}`;

const PLANTED: Readonly<Record<string, string>> = {
  [`test/${folder}/cycle-a.ts`]: [
    "import { countDown } from './cycle-b.js';",
    'export const countUp = (n: number): number => (n > 0 ? countDown(n - 1) : 0);',
  ].join('\n'),
  [`test/${folder}/cycle-b.ts`]: [
    "import { countUp } from './cycle-a.js';",
    'export const countDown = (n: number): number => countUp(n) + 1;',
  ].join('\n'),
  [`hack/${folder}/deep-import.ts`]: [
    "import { rolesOf } from '../../services/gateway/src/apps/admin-routes.js';",
    "export const roles = rolesOf(['admin']);",
  ].join('\n'),
  [`bench/${folder}/deep-import.ts`]: [
    "import { encodeResourceField } from '../../lib/xds/src/response-encoding.js';",
    "export const field = encodeResourceField('type.googleapis.com/x', new Uint8Array());",
  ].join('\n'),
  [`test/${folder}/deep-import.ts`]: [
    "import { startOperator } from '../../operator/src/app.js';",
    'export const start = startOperator;',
  ].join('\n'),
  [`test/${folder}/entry-by-path.ts`]: [
    "import { startGateway } from '../../services/gateway/src/index.js';",
    'export const start = startGateway;',
  ].join('\n'),
  [`test/${folder}/entry-import.ts`]: [
    "import { rolesOf } from '@portcullis/gateway/apps';",
    "export const roles = rolesOf(['admin']);",
  ].join('\n'),
  [`services/gateway/test/${folder}/own-src.ts`]: [
    "import { rolesOf } from '../../src/apps/admin-routes.js';",
    "export const roles = rolesOf(['admin']);",
  ].join('\n'),
};

const plantedDirs = [...new Set(Object.keys(PLANTED).map((file) => join(repo, dirname(file))))];
/** Rule ids reported (sorted), by planted file. */
let reported: Record<string, (string | null)[]> = {};

beforeAll(async () => {
  for (const [file, text] of Object.entries(PLANTED)) {
    mkdirSync(join(repo, dirname(file)), { recursive: true });
    writeFileSync(join(repo, file), `${text}\n`);
  }
  const results = await new ESLint({ cwd: repo }).lintFiles(Object.keys(PLANTED));
  reported = Object.fromEntries(
    results.map((r) => [relative(repo, r.filePath), r.messages.map((m) => m.ruleId).sort()]),
  );
}, 300_000);

afterAll(() => {
  for (const dir of plantedDirs) rmSync(dir, { recursive: true, force: true });
});

describe('lint guards', () => {
  it('fails both files of an import cycle', () => {
    expect(reported[`test/${folder}/cycle-a.ts`]).toEqual(['import-x/no-cycle']);
    expect(reported[`test/${folder}/cycle-b.ts`]).toEqual(['import-x/no-cycle']);
  });

  it.each(['hack', 'bench', 'test'])("fails a deep import from %s/ into another package's src", (top) => {
    expect(reported[`${top}/${folder}/deep-import.ts`]).toEqual([
      'import-x/no-restricted-paths',
      'no-restricted-imports',
    ]);
  });

  it("fails a path to another package's entry: a workspace is imported by its name", () => {
    expect(reported[`test/${folder}/entry-by-path.ts`]).toEqual(['no-restricted-imports']);
  });

  it("passes an import of a package's entry (a subpath of its exports) by name, and a package's tests importing its own src", () => {
    expect(reported[`test/${folder}/entry-import.ts`]).toEqual([]);
    expect(reported[`services/gateway/test/${folder}/own-src.ts`]).toEqual([]);
  });
});
