import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerPath } from '@portcullis/testing';
import { afterAll, describe, expect, it } from 'vitest';

// The GitHub workflows through the real actionlint (hack/peers/actionlint), which runs shellcheck on every
// `run:` step, and every shell script under hack/ through shellcheck (Debian's, installed by .ci/run).

const repo = join(import.meta.dirname, '..');
const workflows = join(repo, '.github/workflows');
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-actionlint-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runTool(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(new Error(`${command} did not run`, { cause: error }));
    });
  });
}

function shellcheckPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v shellcheck'], { encoding: 'utf8' }).trim();
  } catch {
    // actionlint skips the run: steps silently without it, so its absence fails here
    throw new Error('shellcheck is not on PATH: apt-get install shellcheck (.ci/run does)');
  }
}

const actionlint = (files: readonly string[], cwd = repo): Promise<Run> =>
  runTool(peerPath('actionlint'), ['-shellcheck', shellcheckPath(), '-no-color', ...files], cwd);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the workflows', () => {
  it('are ci, e2e, mutation and release, and actionlint with shellcheck finds nothing in them', async () => {
    const files = readdirSync(workflows).sort();
    expect(files).toEqual(['ci.yml', 'e2e.yml', 'mutation.yml', 'release.yml']);
    const result = await actionlint(files.map((f) => join('.github/workflows', f)));
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('would be failed on a run: step shellcheck warns about (the two are wired together)', async () => {
    const file = join(scratch, 'unquoted.yml');
    writeFileSync(
      file,
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo $GITHUB_REF_NAME\n',
    );
    const result = await actionlint([file], scratch);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('SC2086');
  });
});

describe('the shell scripts under hack/', () => {
  it('are shellcheck-clean', async () => {
    const scripts = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', 'hack/*.sh', 'hack/**/*.sh'],
      { cwd: repo, encoding: 'utf8' },
    )
      .split('\n')
      .filter(Boolean);
    expect(scripts).toContain('hack/kind-e2e.sh');
    expect(scripts).toContain('hack/release/publish-image.sh');
    const result = await runTool(shellcheckPath(), ['--external-sources', ...scripts], repo);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
