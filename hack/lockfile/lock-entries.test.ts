import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findPlatformProblems, resolveDependency, type LockPackages } from './lock-entries.js';

const integrity = 'sha512-x';
const darwin = { version: '1.0.0', integrity, optional: true, os: ['darwin'], cpu: ['arm64'] };

describe('resolveDependency', () => {
  const packages: LockPackages = {
    '': {},
    'node_modules/a': {},
    'node_modules/a/node_modules/b': {},
    'node_modules/a/node_modules/@s/c': {},
    'node_modules/a/node_modules/@s/c/node_modules/d': {},
    'node_modules/e': {},
    'lib/kit': {},
  };

  it('finds the nearest node_modules up the tree, as Node does', () => {
    expect(resolveDependency(packages, 'node_modules/a/node_modules/@s/c', 'b')).toBe(
      'node_modules/a/node_modules/b',
    );
    expect(resolveDependency(packages, 'node_modules/a/node_modules/@s/c', 'd')).toBe(
      'node_modules/a/node_modules/@s/c/node_modules/d',
    );
    expect(resolveDependency(packages, 'node_modules/a/node_modules/b', 'e')).toBe('node_modules/e');
    expect(resolveDependency(packages, 'lib/kit', 'e')).toBe('node_modules/e');
    expect(resolveDependency(packages, '', 'missing')).toBeUndefined();
  });
});

describe('findPlatformProblems', () => {
  it('names a stub written without integrity, os or cpu among platform siblings', () => {
    const problems = findPlatformProblems({
      'node_modules/tool': { optionalDependencies: { 'tool-darwin': '1.0.0', 'tool-win32': '1.0.0' } },
      'node_modules/tool-darwin': darwin,
      'node_modules/tool-win32': { version: '1.0.0', dev: true, optional: true },
    });
    expect(problems).toEqual([
      'node_modules/tool-win32: no integrity',
      'node_modules/tool-win32: no os or cpu, unlike the other optional dependencies of node_modules/tool',
    ]);
  });

  it('names an optional dependency the lock leaves out', () => {
    expect(findPlatformProblems({ '': { optionalDependencies: { 'tool-darwin': '1.0.0' } } })).toEqual([
      'the root package: optional dependency tool-darwin has no entry',
    ]);
  });

  it('accepts a platform-neutral optional package and the dependencies of a bundled one', () => {
    expect(
      findPlatformProblems({
        'node_modules/cdk': { version: '2.0.0', integrity },
        'node_modules/cdk/node_modules/jsonfile': {
          inBundle: true,
          optionalDependencies: { 'graceful-fs': '^4.1.6', absent: '1' },
        },
        'node_modules/cdk/node_modules/graceful-fs': { version: '4.2.11', inBundle: true },
        'node_modules/fs-extra': { optionalDependencies: { 'graceful-fs': '^4.2.0' } },
        'node_modules/graceful-fs': { version: '4.2.11', integrity, optional: true },
      }),
    ).toEqual([]);
  });

  it('finds nothing to fix in the repository lock (hack/complete-lockfile.ts completes it)', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
      packages: LockPackages;
    };
    expect(findPlatformProblems(lock.packages)).toEqual([]);
  });
});
