import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, startEntryPoint, waitUntil, type LoggedProcess } from '@portcullis/testing';

const MAIN = join(import.meta.dirname, '../src/main.ts');

/** What `startWorkersInbox` may take at most: tsx compiles the sources in each of the three processes. */
export const WORKERS_START_TIMEOUT_MS = 150_000;

/** The pids of the primary `pid`'s workers (its other child is tsx's esbuild). */
export function workerPids(pid: number): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)]).toString();
  return out.split('\n').flatMap((l) => (l.includes(MAIN) ? [Number(l.trim().split(' ')[0])] : []));
}

/**
 * `main.ts` with INBOX_WORKERS=2 on Redis `env`, as its own process tree (a primary and two node:cluster
 * workers sharing the port; a request on a connection of its own goes to the workers in turn); resolves
 * once both workers run.
 */
export async function startWorkersInbox(
  env: Record<string, string>,
): Promise<{ inbox: LoggedProcess; port: number }> {
  const port = await freePort();
  const inbox = await startEntryPoint(MAIN, {
    env: {
      INBOX_HOST: '127.0.0.1',
      INBOX_PORT: String(port),
      INBOX_WORKERS: '2',
      INBOX_SHUTDOWN_DELAY: '0s',
      LOG_LEVEL: 'warn',
      ...env,
    },
    healthUrl: `http://127.0.0.1:${port}/readyz`,
    timeoutMs: 90_000,
  });
  // the port answers once one worker does
  await waitUntil(() => workerPids(inbox.child.pid ?? 0).length === 2, 60_000).catch(async (err: unknown) => {
    await inbox.stop(2000);
    throw new Error(`workers: ${workerPids(inbox.child.pid ?? 0).join(', ')}\n${inbox.output()}`, {
      cause: err,
    });
  });
  return { inbox, port };
}
