import { spawnLogged, type LoggedProcess } from './logged-process.js';
import { waitUntil } from './wait.js';

/**
 * A process's `main.ts` run under tsx with exactly `env` (and `PATH`), once `healthUrl` answers 200 within
 * `timeoutMs` (60 s by default: tsx compiles the sources first, slowly on a busy machine); a process that
 * exits or never answers is stopped and its output thrown.
 */
export async function startEntryPoint(
  main: string,
  o: { env: Record<string, string>; healthUrl: string; timeoutMs?: number },
): Promise<LoggedProcess> {
  const p = spawnLogged(process.execPath, ['--import', 'tsx', main], o.env);
  const status = (): Promise<number> =>
    fetch(o.healthUrl).then(
      (r) => r.status,
      () => 0,
    );
  try {
    await waitUntil(async () => {
      if (p.child.exitCode !== null) throw new Error(`${main} exited: ${p.output()}`);
      return (await status()) === 200;
    }, o.timeoutMs ?? 60_000);
  } catch (err: unknown) {
    await p.stop();
    throw new Error(`${main} did not start: ${p.output()}`, { cause: err });
  }
  return p;
}
