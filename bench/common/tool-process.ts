import { spawn } from 'node:child_process';

const OUTPUT_TAIL_CHARS = 4000;

export interface ToolProcess {
  pid: number;
  /** Resolves with its whole stdout once it exited with status 0; rejects, with its output, otherwise. */
  stdout: Promise<string>;
}

/**
 * Runs an external load generator. It stays in this process group, so Ctrl-C stops it with the
 * benchmark; its CPU is read from `/proc/<pid>` while it runs.
 */
export function spawnTool(command: string, args: readonly string[]): ToolProcess {
  const child = spawn(command, [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on(
    'data',
    (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-OUTPUT_TAIL_CHARS)),
  );
  const done = new Promise<string>((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`${command}: ${err.message}`, { cause: err })));
    child.once('close', (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new Error(
              `${command} ${args.join(' ')} exited with ${code ?? signal}:\n${stdout.slice(-OUTPUT_TAIL_CHARS)}${stderr}`,
            ),
          ),
    );
  });
  if (child.pid === undefined) {
    done.catch(() => undefined);
    throw new Error(`${command}: could not spawn it`);
  }
  return { pid: child.pid, stdout: done };
}
