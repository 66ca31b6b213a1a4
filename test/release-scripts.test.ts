import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runHackScript } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { helmPath } from '../hack/helm.js';

// The release workflow's scripts (hack/release/), run here up to the Docker boundary: the chart packaged with
// the real Helm, release notes from a real git history, the tag checked against the project version.
// publish-image.sh (docker buildx, cosign) and create-github-release.sh (gh) run only on GitHub's runners.

const repo = join(import.meta.dirname, '..');
const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-release-'));
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Release Test',
  GIT_AUTHOR_EMAIL: 'release@example.test',
  GIT_COMMITTER_NAME: 'Release Test',
  GIT_COMMITTER_EMAIL: 'release@example.test',
};

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function script(name: string, args: readonly string[], cwd = repo, env = process.env) {
  try {
    const r = await run('bash', [join(repo, 'hack/release', name), ...args], { cwd, env });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e: unknown) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('package-chart.sh', () => {
  it('packages the chart with the tag as version and appVersion, so the images default to that tag', async () => {
    const out = join(scratch, 'chart');
    const result = await script('package-chart.sh', ['v1.2.3-rc.1', out]);
    expect(result.code).toBe(0);
    const pkg = result.stdout.trim().split('\n').at(-1) ?? '';
    expect(pkg).toBe(join(out, 'portcullis-1.2.3-rc.1.tgz'));

    const chart = parse((await run(helmPath(), ['show', 'chart', pkg])).stdout) as Record<string, unknown>;
    expect(chart).toMatchObject({ name: 'portcullis', version: '1.2.3-rc.1', appVersion: '1.2.3-rc.1' });
    const rendered = (await run(helmPath(), ['template', 'p', pkg], { maxBuffer: 16 << 20 })).stdout;
    const images = parseAllDocuments(rendered)
      .flatMap((d) => [...JSON.stringify(d.toJSON()).matchAll(/"image":"([^"]+)"/g)])
      .map((m) => m[1]);
    const ours = images.filter((image) => image?.includes('/portcullis-'));
    expect(ours.length).toBeGreaterThanOrEqual(5);
    for (const image of ours)
      expect(image).toMatch(/^ghcr\.io\/portcullis-dev\/portcullis-[a-z-]+:1\.2\.3-rc\.1$/);
  });

  it('refuses what is not a version tag', async () => {
    const result = await script('package-chart.sh', ['latest', join(scratch, 'refused')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('package-chart: latest is not a version tag');
  });
});

describe('release-notes.sh', () => {
  const history = join(scratch, 'history');
  const git = (...args: string[]) => run('git', args, { cwd: history, env: GIT_ENV });
  const commit = (subject: string) => git('commit', '--allow-empty', '-q', '-m', subject);

  beforeAll(async () => {
    await run('git', ['init', '-q', '-b', 'main', history]);
    await commit('first commit');
    await git('tag', 'v0.1.0');
    await commit('ratelimit: a fix');
    await git('checkout', '-q', '-b', 'topic');
    await commit('gateway: a feature');
    await git('checkout', '-q', 'main');
    await git('merge', '-q', '--no-ff', '-m', "Merge branch 'topic'", 'topic');
    await git('tag', 'v0.2.0');
    await commit('after the release');
  });

  it('lists the commits since the previous tag, oldest first, without merges, and how to install', async () => {
    const first = await script('release-notes.sh', ['v0.1.0'], history);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('The first release:\n\n- first commit (');

    const notes = await script('release-notes.sh', ['v0.2.0'], history, { ...process.env, OWNER: 'acme' });
    expect(notes.code).toBe(0);
    const changes = notes.stdout.split('\n').filter((line) => line.startsWith('- '));
    expect(changes.map((line) => line.replace(/ \([0-9a-f]+\)$/, ''))).toEqual([
      '- ratelimit: a fix',
      '- gateway: a feature',
    ]);
    expect(notes.stdout).toContain('Since v0.1.0:');
    expect(notes.stdout).toContain(
      'helm install portcullis oci://ghcr.io/acme/charts/portcullis --version 0.2.0',
    );
  });

  it('refuses a tag that does not exist', async () => {
    const result = await script('release-notes.sh', ['v9.9.9'], history);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('release-notes: no tag v9.9.9');
  });
});

describe('version.ts check', () => {
  it('prints the project version, and fails on a tag that is not v<version>', async () => {
    const ok = await runHackScript('release/version.ts', ['check'], {});
    expect(ok.code).toBe(0);
    const version = ok.stdout.trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);

    const wrong = await runHackScript('release/version.ts', ['check', 'v99.0.0'], {});
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`tag v99.0.0: expected v${version} (package.json version)`);
  });
});
