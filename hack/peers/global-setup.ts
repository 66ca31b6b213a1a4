// vitest global setup of the integration tests: builds the real peers they run (`npm run peers`) before the
// first test, so the README's test command stays one command. A no-op when everything is built.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function buildPeers(): void {
  const script = fileURLToPath(new URL('build.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0)
    throw new Error(`npm run peers failed (exit ${r.status ?? r.signal}); see its output above`);
}
