// Reading package-lock.json (lockfileVersion 3) the way npm resolves it: which entry a dependency lands on,
// and which optional platform entries a user on another platform would install without a check.

export interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  inBundle?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
export type LockPackages = Readonly<Record<string, LockEntry>>;

/** The entry Node's resolution finds `name` at from the package at `location` (its own node_modules, then each ancestor's). */
export function resolveDependency(
  packages: LockPackages,
  location: string,
  name: string,
): string | undefined {
  let base = location;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

/** An entry npm would download without being able to check it: no integrity, and neither a link nor bundled. */
export function isIncompleteEntry(entry: LockEntry | undefined): boolean {
  return entry !== undefined && !entry.link && !entry.inBundle && !entry.integrity;
}

const isPlatformSpecific = (e: LockEntry | undefined): boolean => Boolean(e?.os ?? e?.cpu);

/**
 * Every way the lock fails a user on another platform, one line each: an optional dependency without an
 * entry, an optional entry without integrity, and an entry without `os`/`cpu` among optional siblings that
 * have them (one of a family of platform binaries; an optional package with no platform siblings, like
 * graceful-fs, is platform-neutral).
 */
export function findPlatformProblems(packages: LockPackages): string[] {
  const problems = new Set<string>();
  for (const [location, entry] of Object.entries(packages)) {
    if ((entry.optional || entry.devOptional) && isIncompleteEntry(entry)) {
      problems.add(`${location}: no integrity`);
    }
    if (entry.inBundle || !entry.optionalDependencies) continue;
    const owner = location === '' ? 'the root package' : location;
    const resolved = Object.keys(entry.optionalDependencies).map((name) => ({
      name,
      at: resolveDependency(packages, location, name),
    }));
    const isFamily = resolved.some(({ at }) => at !== undefined && isPlatformSpecific(packages[at]));
    for (const { name, at } of resolved) {
      if (at === undefined) problems.add(`${owner}: optional dependency ${name} has no entry`);
      else if (isFamily && !isPlatformSpecific(packages[at])) {
        problems.add(`${at}: no os or cpu, unlike the other optional dependencies of ${owner}`);
      }
    }
  }
  return [...problems].sort();
}
