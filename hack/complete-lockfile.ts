// `npm install` on these machines can leave other platforms' optional packages (rollup, esbuild, …) out of
// package-lock.json, or write them as bare entries without `os`/`cpu`/`integrity`; `npm ci` then refuses the
// lock as out of sync, or a macOS or Windows install trusts an entry nobody checked. This completes each
// such entry from the registry's own metadata (`npm view`, so the user's registry, CA and auth settings
// apply) as npm writes it: version, integrity, os, cpu, libc, license, optional. Run it after changing
// dependencies:
//   npm install && npx tsx hack/complete-lockfile.ts
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isIncompleteEntry, resolveDependency, type LockEntry } from './lockfile/lock-entries.js';

const path = fileURLToPath(new URL('../package-lock.json', import.meta.url));

interface Manifest {
  version: string;
  'dist.integrity': string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  license?: string;
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

function view(name: string, spec: string): Manifest {
  const fields = ['version', 'dist.integrity', 'os', 'cpu', 'libc', 'license', 'engines', 'bin'];
  const out = execFileSync(
    'npm',
    ['view', '--json', `${name}@${spec}`, ...fields, 'scripts', 'dependencies'],
    { encoding: 'utf8' },
  );
  // a range that matches several versions gives an array, oldest first: npm installs the newest
  const parsed = JSON.parse(out) as Manifest | Manifest[];
  const manifest = Array.isArray(parsed) ? parsed.at(-1) : parsed;
  if (!manifest?.['dist.integrity'])
    throw new Error(`npm view ${name}@${spec}: no version with an integrity`);
  if (Object.keys(manifest.dependencies ?? {}).length > 0) {
    // its dependencies would need entries of their own; no platform package has any so far
    throw new Error(`${name}@${manifest.version} has dependencies: add it with npm install on its platform`);
  }
  return manifest;
}

/** The entry as npm writes it: version, integrity, then the flat fields by name, then the objects. */
function toEntry(m: Manifest, flags: Pick<LockEntry, 'dev' | 'devOptional'>): LockEntry {
  const hasInstallScript = INSTALL_SCRIPTS.some((s) => m.scripts?.[s] !== undefined);
  return {
    version: m.version,
    integrity: m['dist.integrity'],
    ...(m.cpu ? { cpu: m.cpu } : {}),
    ...(flags.dev ? { dev: true } : {}),
    ...(flags.devOptional ? { devOptional: true } : {}),
    ...(hasInstallScript ? { hasInstallScript: true } : {}),
    ...(m.libc ? { libc: m.libc } : {}),
    ...(m.license ? { license: m.license } : {}),
    optional: true,
    ...(m.os ? { os: m.os } : {}),
    ...(m.bin ? { bin: m.bin } : {}),
    ...(m.engines ? { engines: m.engines } : {}),
  };
}

const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockEntry> };
const packages = lock.packages;
let completed = 0;
for (const [location, meta] of Object.entries(packages)) {
  // a bundled package's dependencies ship inside its parent's tarball: npm never fetches them
  if (meta.inBundle) continue;
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const found = resolveDependency(packages, location, name);
    if (found && !isIncompleteEntry(packages[found])) continue;
    const at = found ?? `node_modules/${name}`;
    const manifest = view(name, packages[at]?.version ?? spec);
    packages[at] = toEntry(manifest, meta);
    process.stdout.write(`${at}@${manifest.version}\n`);
    completed++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${completed} optional platform package(s) completed\n`);
