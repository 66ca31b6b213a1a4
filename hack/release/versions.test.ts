import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findVersionDrift, listWorkspaces, setProjectVersion } from './versions.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const CHART = 'charts/portcullis/Chart.yaml';
const VALUES = 'charts/portcullis/values.yaml';
const temps: string[] = [];

/** A copy of just the files that carry the version, in a fresh folder. */
function copyVersionFiles(): string {
  const root = mkdtempSync(join(tmpdir(), 'portcullis-versions-'));
  temps.push(root);
  const files = [
    'package.json',
    'package-lock.json',
    CHART,
    VALUES,
    ...listWorkspaces(repo).map((dir) => `${dir}/package.json`),
  ];
  for (const file of files) cpSync(join(repo, file), join(root, file), { recursive: true });
  return root;
}

function edit(root: string, file: string, from: RegExp, to: string): void {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toMatch(from);
  writeFileSync(path, text.replace(from, to));
}

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the project version', () => {
  it('is one version in every package.json, the lock, the chart and its default image tag', () => {
    expect(findVersionDrift(repo)).toEqual([]);
  });

  it('names each file that drifts from package.json', () => {
    const root = copyVersionFiles();
    edit(root, CHART, /^appVersion: .*$/m, "appVersion: '9.9.9'");
    edit(root, VALUES, /^ {2}tag: ''$/m, '  tag: latest');
    edit(root, 'lib/ratelimit-client/package.json', /"version": "[^"]*"/, '"version": "0.0.9"');
    const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    expect(findVersionDrift(root)).toEqual([
      `lib/ratelimit-client/package.json version: 0.0.9, package.json version: ${version.version}`,
      `${CHART} appVersion: 9.9.9, package.json version: ${version.version}`,
      `${VALUES} image.tag (empty: the chart's appVersion): latest, package.json version: ${version.version}`,
    ]);
  });

  it('is set everywhere at once, keeping each file otherwise as it was', () => {
    const root = copyVersionFiles();
    setProjectVersion(root, '1.2.3-rc.1');
    expect(findVersionDrift(root)).toEqual([]);
    const chart = readFileSync(join(root, CHART), 'utf8');
    expect(chart).toContain("\nversion: 1.2.3-rc.1\nappVersion: '1.2.3-rc.1'\n");
    const before = readFileSync(join(repo, 'services/inbox/package.json'), 'utf8');
    const after = readFileSync(join(root, 'services/inbox/package.json'), 'utf8');
    expect(after).toBe(before.replace(/"version": "[^"]*"/, '"version": "1.2.3-rc.1"'));
  });

  it('refuses a version that is not semver', () => {
    expect(() => setProjectVersion(copyVersionFiles(), 'v1.2')).toThrow(
      'v1.2: expected a semantic version such as 1.2.3',
    );
  });
});
