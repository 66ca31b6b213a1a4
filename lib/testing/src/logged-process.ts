import { spawn, type ChildProcess } from 'node:child_process';

/** A child process whose stdout and stderr are kept, for readiness checks and failure messages. */
export interface LoggedProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything written on stdout and stderr so far, interleaved as it arrived. */
  output(): string;
  /** Called with each complete line of stderr, as it arrives. */
  onStderrLine(listener: (line: string) => void): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Spawns `command` with exactly `env` (and `PATH`), collecting its output. */
export function spawnLogged(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): LoggedProcess {
  const child = spawn(command, [...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let partial = '';
  const listeners: Array<(line: string) => void> = [];
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    const text = d.toString();
    output += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) for (const l of listeners.slice()) l(line);
  });
  child.once('error', (err) => (output += `\nspawn ${command}: ${err.message}\n`));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output,
    onStderrLine: (listener) => listeners.push(listener),
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
