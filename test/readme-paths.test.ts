import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every source path a README or docs page names exists, and every relative link leads somewhere: the
// "Reading the code" maps are how a reader finds the code, and nothing else notices when a file they name is
// renamed or deleted. A name is looked up beside the page, in the page's package and from the repository root,
// then as the end of any path in the repository (pages name other packages' files: lib/xds's
// `response-encoding.ts`). CHANGELOG.md is history and names files since removed.

const repo = join(import.meta.dirname, '..');

/** Other projects' files the pages cite (upstream Envoy ratelimit's sources, Envoy's API). */
const OTHER_PROJECTS = new Set([
  'src/godogstats/mogrifier_map.go',
  'src/redis/driver_impl.go',
  'src/stats/manager_impl.go',
  'src/utils/utilities.go',
  'rls.proto',
]);

/** A code span that is one source file's path (generated declarations, `.d.ts`, are not source). */
const SOURCE_PATH = /^(?!.*\.d\.ts$)[\w@./-]*[\w-]\.(?:ts|tsx|mts|mjs|js|go|sh|proto)$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: repo,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(repo, file)));
const fileSet = new Set(files);
const folders = new Set(files.flatMap((file) => ancestors(file)));

function ancestors(file: string): string[] {
  const found: string[] = [];
  for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) found.push(dir);
  return found;
}

/** The folder of the workspace (or the repository, '.') a page belongs to. */
function packageOf(page: string): string {
  return ancestors(page).find((dir) => fileSet.has(`${dir}/package.json`)) ?? '.';
}

function isNamedFile(name: string, page: string): boolean {
  const path = name.replace(/^\.\//, '');
  const places = [posix.dirname(page), packageOf(page), '.'].map((dir) => posix.join(dir, path));
  return places.some((place) => fileSet.has(place)) || files.some((file) => file.endsWith(`/${path}`));
}

/** `page:line: path` for each source path or relative link of the page that leads nowhere. */
function missingPaths(page: string): string[] {
  const missing: string[] = [];
  readFileSync(join(repo, page), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const where = `${page}:${String(index + 1)}`;
      for (const [, name = ''] of line.matchAll(/`([^`\s]+)`/g)) {
        if (SOURCE_PATH.test(name) && !OTHER_PROJECTS.has(name) && !isNamedFile(name, page)) {
          missing.push(`${where}: ${name}`);
        }
      }
      for (const [, target = ''] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target.split('#')[0] ?? '';
        if (path === '' || /^[a-z]+:/.test(path)) continue;
        const resolved = posix.join(posix.dirname(page), path).replace(/\/$/, '');
        if (!fileSet.has(resolved) && !folders.has(resolved)) missing.push(`${where}: link ${target}`);
      }
    });
  return missing;
}

describe('paths the READMEs and docs name', () => {
  const pages = files.filter((file) => file.endsWith('.md') && file !== 'CHANGELOG.md');

  it('finds the pages', () => {
    expect(pages).toContain('services/ratelimit/README.md');
  });

  it('all exist', () => {
    const missing = pages.flatMap(missingPaths);
    expect(missing, `named but missing:\n${missing.join('\n')}`).toEqual([]);
  });
});
