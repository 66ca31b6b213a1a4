import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

// issue 34: eslint.config.js refuses regular expressions that backtrack super-linearly, in every TypeScript
// source. Planted code at paths inside the repository is linted with the repository's own config; only the
// regexp rules run, without type information, so the planted files need not exist.

const repo = join(import.meta.dirname, '..');
const eslint = new ESLint({
  cwd: repo,
  overrideConfig: [tseslint.configs.disableTypeChecked],
  ruleFilter: ({ ruleId }) => ruleId.startsWith('regexp/'),
});

/** The rule ids reported on `code` planted at `file` (relative to the repository), sorted. */
async function reportedRules(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repo, file) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message).sort();
}

describe('regexp lint (issue 34)', () => {
  it('fails an expression whose quantifiers trade characters, wherever the source lives', async () => {
    // the filter's old glob, `*a*a*b`, as the expression it became
    const code = 'export const isMatch = (path: string): boolean => /^.*a.*a.*b$/s.test(path);\n';
    for (const file of [
      'services/inbox/src/contract/planted.ts',
      'lib/kit/src/planted.ts',
      'services/gateway/test/planted.test.ts',
      'services/inbox/web/src/planted.tsx',
    ]) {
      expect(await reportedRules(file, code), file).toContain('regexp/no-super-linear-backtracking');
    }
  });

  it('fails an expression that moves super-linearly when it cannot match', async () => {
    const code = "export const trimSlashes = (path: string): string => path.replace(/\\/+$/, '');\n";
    expect(await reportedRules('services/gateway/src/planted.ts', code)).toEqual([
      'regexp/no-super-linear-move',
    ]);
  });

  it('passes linear expressions', async () => {
    const code = [
      'export const isId = (id: string): boolean => /^[a-z0-9]{1,32}$/.test(id);',
      'export const hasStar = (glob: string): boolean => /^[^*]*\\*/.test(glob);',
    ].join('\n');
    expect(await reportedRules('services/inbox/src/contract/planted.ts', `${code}\n`)).toEqual([]);
  });
});
