import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STOP_GRACE_MS = 5000;
const OUTPUT_TAIL_CHARS = 8000;

export interface Child {
  name: string;
  /** The process; also the id of the process group holding it and any worker process it forks. */
  pid: number;
  /** Resolves with the first line the child writes to stdout. */
  firstLine: Promise<string>;
  /** Whether the child has exited (it should not, before `stop`). */
  isExited(): boolean;
  /** The last lines of its stdout and stderr, for error messages. */
  outputTail(): string;
  /** Lines written so far (the service logs at warn: any line is worth a look). */
  lineCount(): number;
  /** SIGTERM, then SIGKILL to its whole process group after a grace period. Idempotent. */
  stop(): Promise<void>;
}

export interface NodeChildOptions {
  name: string;
  script: string;
  /** Arguments after the script. */
  args?: readonly string[];
  env?: Record<string, string>;
  /** Node flags, before the script (Node 20 refuses some, like `--cpu-prof`, in NODE_OPTIONS). */
  nodeFlags?: readonly string[];
}

/**
 * Runs `node <script>` from the repository root (with `--import tsx` when the script is TypeScript) in its
 * own process group, so that stopping it also stops the worker processes it forks, whose CPU and memory are
 * read as its own. Node itself, not the `tsx` command, which would add a second node process to the group.
 */
export function spawnNode(o: NodeChildOptions): Child {
  const loader = o.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return spawnChild({
    name: o.name,
    command: process.execPath,
    args: [...loader, ...(o.nodeFlags ?? []), o.script, ...(o.args ?? [])],
    ...(o.env ? { env: o.env } : {}),
  });
}

/**
 * Runs `command` from the repository root in its own process group (a server that forks workers, like
 * nginx, is then measured and stopped whole).
 */
export function spawnChild(o: {
  name: string;
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
}): Child {
  const name = o.name;
  const child = spawn(o.command, [...o.args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...o.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.on('error', () => undefined); // a failed spawn leaves `pid` unset, reported just below
  if (child.pid === undefined) throw new Error(`${name}: could not spawn ${o.command}`);
  const pid = child.pid;
  let output = '';
  let lines = 0;
  let resolveLine: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (resolveLine = resolve));
  const collect = (chunk: Buffer): void => {
    const text = chunk.toString();
    lines += text.split('\n').length - 1;
    output = (output + text).slice(-OUTPUT_TAIL_CHARS);
  };
  let head: string | undefined = '';
  child.stdout.on('data', (chunk: Buffer) => {
    collect(chunk);
    if (head === undefined) return;
    head += chunk.toString();
    const newline = head.indexOf('\n');
    if (newline < 0) return;
    resolveLine(head.slice(0, newline));
    head = undefined;
  });
  child.stderr.on('data', collect);
  let exited = false;
  const exit = once(child, 'exit').then(() => (exited = true));
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const firstLineOrExit = Promise.race([firstLine, exit.then(() => Promise.reject(exitError(name, output)))]);
  // Nobody may ask for the first line; an early exit is then reported by `isExited`, not as unhandled.
  firstLineOrExit.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  return {
    name,
    pid,
    firstLine: firstLineOrExit,
    isExited: () => exited,
    outputTail: () => output,
    lineCount: () => lines,
    stop: () =>
      (stopping ??= (async () => {
        if (!exited) child.kill('SIGTERM');
        await Promise.race([exit, sleep(STOP_GRACE_MS)]);
        killGroup('SIGKILL');
      })()),
  };
}

export function exitError(name: string, output: string): Error {
  return new Error(`${name} exited early; its last output:\n${output}`);
}
