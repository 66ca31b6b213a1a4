import { spawnSync } from 'node:child_process';

/** The external load generators and the Debian package that installs each. */
const LOAD_TOOLS = [
  { command: 'h2load', debianPackage: 'nghttp2-client' },
  { command: 'wrk', debianPackage: 'wrk' },
] as const;

/** Throws, naming the packages to install, when `h2load` or `wrk` is not on the path. */
export function requireLoadTools(): void {
  // spawnSync sets `error` only when the command could not be run at all (ENOENT when not on the path)
  const missing = LOAD_TOOLS.filter(
    (t) => spawnSync(t.command, ['--version'], { stdio: 'ignore' }).error !== undefined,
  );
  if (missing.length === 0) return;
  throw new Error(
    `the benchmarks drive the servers with h2load and wrk; missing: ${missing.map((t) => t.command).join(', ')} ` +
      `(install: apt-get install ${missing.map((t) => t.debianPackage).join(' ')})`,
  );
}
