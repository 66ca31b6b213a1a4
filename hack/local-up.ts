// `npm start`: the platform on this machine with embedded defaults (in-memory stores, the examples under
// examples/), no cluster and no Redis. Each service runs as its own process, as in a cluster; Ctrl-C stops all.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules/.bin/tsx');

const services: Array<{ name: string; entry: string; env: Record<string, string> }> = [
  {
    name: 'ratelimit',
    entry: 'services/ratelimit/src/main.ts',
    env: {
      BACKEND_TYPE: 'memory',
      RUNTIME_ROOT: join(root, 'examples/ratelimit'),
      RUNTIME_APPDIRECTORY: 'config',
      RUNTIME_WATCH_ROOT: 'false',
      LOG_LEVEL: 'info',
    },
  },
];

const children: ChildProcess[] = services.map(({ name, entry, env }) => {
  const child = spawn(tsx, [join(root, entry)], { env: { ...env, ...process.env }, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    process.stderr.write(`${name} exited (${signal ?? code})\n`);
    stopAll(code ?? 1);
  });
  return child;
});

let stopping = false;
function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 6000).unref();
  Promise.all(
    children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))),
  ).then(
    () => process.exit(code),
    () => process.exit(code),
  );
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
