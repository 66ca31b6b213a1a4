// The registry this project is built against serves only the packages of the machines it runs on, so
// `npm install` leaves other platforms' optional packages (rollup, esbuild, …) out of package-lock.json and
// `npm ci` then refuses the lock as out of sync. This adds a stub entry for each missing optional package
// (name, version, `optional`), which `npm ci` accepts and skips. Run it after changing dependencies:
//   npm install && npx tsx hack/complete-lockfile.ts
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockEntry> };
const packages = lock.packages;
let added = 0;
for (const [location, meta] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = location === '' ? '' : `${location}/`;
    const candidates = [`${base}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((c) => c in packages)) continue;
    packages[`node_modules/${name}`] = {
      version: spec,
      ...(meta.dev ? { dev: true } : {}),
      ...(meta.devOptional ? { devOptional: true } : {}),
      optional: true,
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`package-lock.json: ${added} optional platform package(s) stubbed\n`);
