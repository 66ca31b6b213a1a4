import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const INSTALL_SCRIPT = 'hack/install-schemathesis.sh';

/** The pinned version: the `version=` line of hack/install-schemathesis.sh, its one spelling. */
export function schemathesisVersion(): string {
  const m = /^version=(\S+)$/m.exec(readFileSync(`${ROOT}${INSTALL_SCRIPT}`, 'utf8'));
  if (!m?.[1]) throw new Error(`${INSTALL_SCRIPT}: no version= line`);
  return m[1];
}

/**
 * The `st` binary of the pinned Schemathesis, installed into .cache by hack/install-schemathesis.sh (which
 * .ci/run calls). Throws, naming that command, when it is missing: the contract tests never skip.
 */
export function schemathesisPath(): string {
  const version = schemathesisVersion();
  const path = `${ROOT}.cache/schemathesis/${version}/bin/st`;
  if (!existsSync(path)) {
    throw new Error(`Schemathesis ${version} is not installed at ${path}: run bash ${INSTALL_SCRIPT}`);
  }
  return path;
}

/**
 * `st run` of the document at `schema` with a fixed `seed` (a failure names it, and the same run reproduces
 * it), one worker, no example database and the full output, plus `args`; in a fresh folder (it writes
 * Hypothesis' and its own state where it runs), with only PATH from the environment, and `config` as its
 * `schemathesis.toml` when given. Resolves its exit code (null when killed at `timeoutMs`) and output.
 */
export async function runSchemathesis(o: {
  schema: string;
  seed: number;
  maxExamples: number;
  checks: readonly string[];
  args: readonly string[];
  timeoutMs: number;
  config?: string;
}): Promise<{ code: number | null; output: string }> {
  const args = [
    'run',
    o.schema,
    `--seed=${o.seed}`,
    `--max-examples=${o.maxExamples}`,
    `--checks=${o.checks.join(',')}`,
    '--workers=1',
    '--request-timeout=5',
    '--generation-database=none',
    '--no-color',
    '--output-truncate=false',
    ...o.args,
  ];
  const st = schemathesisPath();
  const work = mkdtempSync(join(tmpdir(), 'schemathesis-'));
  const timeoutMs = o.timeoutMs;
  const config = join(work, 'schemathesis.toml');
  if (o.config !== undefined) writeFileSync(config, o.config);
  try {
    return await new Promise((resolve) => {
      execFile(
        st,
        // a global option: before the command
        [...(o.config === undefined ? [] : ['--config-file', config]), ...args],
        { cwd: work, env: { PATH: process.env.PATH ?? '', HOME: work, NO_COLOR: '1' }, timeout: timeoutMs },
        (err, stdout, stderr) => {
          const exit = err ? (typeof err.code === 'number' ? err.code : null) : 0;
          resolve({ code: exit, output: stdout + stderr });
        },
      );
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
