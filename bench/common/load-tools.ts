import { spawnSync } from 'node:child_process';

/** An external program a benchmark runs, and the Debian package that installs it. */
export interface BenchTool {
  command: string;
  debianPackage: string;
}

/** The external load generators. */
const LOAD_TOOLS: readonly BenchTool[] = [
  { command: 'h2load', debianPackage: 'nghttp2-client' },
  { command: 'wrk', debianPackage: 'wrk' },
];

/**
 * Throws, naming the packages to install, when `h2load`, `wrk` or one of the benchmark's `peers` (a server it
 * compares with, like nginx) is missing.
 */
export function requireLoadTools(peers: readonly BenchTool[] = []): void {
  // spawnSync sets `error` only when the command could not be run at all (ENOENT when not on the path)
  const missing = [...LOAD_TOOLS, ...peers].filter(
    (t) => spawnSync(t.command, ['--version'], { stdio: 'ignore' }).error !== undefined,
  );
  if (missing.length === 0) return;
  throw new Error(
    `the benchmarks drive the servers with h2load and wrk and compare with their peers; missing: ${missing.map((t) => t.command).join(', ')} ` +
      `(install: apt-get install ${missing.map((t) => t.debianPackage).join(' ')})`,
  );
}
