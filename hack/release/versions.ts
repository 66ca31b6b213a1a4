// One version for the whole project: the root package.json's `version` is the source of truth; every
// workspace's package.json (and its package-lock.json entry), the chart's `version` and `appVersion`, and the
// image tag the chart's values default to follow it. `hack/release/version.ts set <version>` writes them
// all; `findVersionDrift` names every file that disagrees.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const CHART = 'charts/portcullis/Chart.yaml';
const VALUES = 'charts/portcullis/values.yaml';
const LOCK = 'package-lock.json';
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
// the top-level "version" of a package.json: two spaces in, as npm and prettier write it
const PACKAGE_VERSION = /^ {2}"version": "[^"]*"/m;

interface PackageJson {
  version?: string;
  workspaces?: string[];
}
interface Lock {
  version?: string;
  packages: Record<string, { version?: string }>;
}

const readJson = (root: string, file: string): unknown => JSON.parse(readFileSync(join(root, file), 'utf8'));

/** The workspace folders the root package.json lists (`lib/*` expanded), relative to `root`. */
export function listWorkspaces(root: string): string[] {
  const { workspaces = [] } = readJson(root, 'package.json') as PackageJson;
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(join(root, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => existsSync(join(root, dir, 'package.json')))
      .sort();
  });
}

/** The project's version: the root package.json's. Throws when it is missing or not semver. */
export function readProjectVersion(root: string): string {
  const { version } = readJson(root, 'package.json') as PackageJson;
  if (!version || !SEMVER.test(version)) {
    throw new Error(`package.json version: expected a semantic version, found ${String(version)}`);
  }
  return version;
}

/** Every place whose version differs from the root package.json's, one line each; empty when all agree. */
export function findVersionDrift(root: string): string[] {
  const expected = readProjectVersion(root);
  const problems: string[] = [];
  const check = (where: string, found: unknown): void => {
    if (found !== expected) {
      problems.push(`${where}: ${String(found)}, package.json version: ${expected}`);
    }
  };
  const lock = readJson(root, LOCK) as Lock;
  check(`${LOCK} version`, lock.version);
  check(`${LOCK} packages[""].version`, lock.packages['']?.version);
  for (const dir of listWorkspaces(root)) {
    check(`${dir}/package.json version`, (readJson(root, `${dir}/package.json`) as PackageJson).version);
    check(`${LOCK} packages["${dir}"].version`, lock.packages[dir]?.version);
  }
  const chart = parse(readFileSync(join(root, CHART), 'utf8')) as Record<string, unknown>;
  check(`${CHART} version`, chart.version);
  check(`${CHART} appVersion`, chart.appVersion);
  const values = parse(readFileSync(join(root, VALUES), 'utf8')) as { image?: { tag?: unknown } };
  // an empty tag makes the images <registry>/portcullis-<component>:<appVersion> (templates/_helpers.tpl)
  const tag = values.image?.tag;
  if (tag !== '') check(`${VALUES} image.tag (empty: the chart's appVersion)`, tag);
  return problems;
}

function rewrite(root: string, file: string, edit: (text: string) => string): void {
  const path = join(root, file);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
}

function setPackageVersion(root: string, file: string, version: string): void {
  rewrite(root, file, (text) => {
    if (!PACKAGE_VERSION.test(text)) throw new Error(`${file}: no top-level "version"`);
    return text.replace(PACKAGE_VERSION, `  "version": "${version}"`);
  });
}

/** Writes `version` to every place findVersionDrift reads, keeping each file's formatting. */
export function setProjectVersion(root: string, version: string): void {
  if (!SEMVER.test(version)) throw new Error(`${version}: expected a semantic version such as 1.2.3`);
  const workspaces = listWorkspaces(root);
  for (const file of ['package.json', ...workspaces.map((dir) => `${dir}/package.json`)]) {
    setPackageVersion(root, file, version);
  }
  const lock = readJson(root, LOCK) as Lock;
  lock.version = version;
  for (const key of ['', ...workspaces]) {
    const entry = lock.packages[key];
    if (!entry) throw new Error(`${LOCK}: no entry for the workspace "${key}"`);
    entry.version = version;
  }
  writeFileSync(join(root, LOCK), `${JSON.stringify(lock, null, 2)}\n`);
  rewrite(root, CHART, (text) =>
    text
      .replace(/^version: .*$/m, `version: ${version}`)
      .replace(/^appVersion: .*$/m, `appVersion: '${version}'`),
  );
}
