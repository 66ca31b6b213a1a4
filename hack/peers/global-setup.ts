// vitest global setup of the integration tests: builds the real peers they run (`npm run peers`) and installs
// the pinned Schemathesis (`hack/install-schemathesis.sh`) before the first test, so the README's test command
// stays one command. Each is a no-op when already done.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

function run(what: string, command: string, args: readonly string[]): void {
  const r = spawnSync(command, [...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}); see its output above`);
}

export default function prepareTestPeers(): void {
  run('npm run peers', process.execPath, [
    '--import',
    'tsx',
    fileURLToPath(new URL('build.ts', import.meta.url)),
  ]);
  run('hack/install-schemathesis.sh', 'bash', [
    fileURLToPath(new URL('../install-schemathesis.sh', import.meta.url)),
  ]);
}
