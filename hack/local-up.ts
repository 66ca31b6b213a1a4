// `npm start`: the platform on this machine with embedded defaults (in-memory stores, the examples under
// examples/), no cluster and no Redis. Each service runs as its own process, as in a cluster; Ctrl-C stops all.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInspector } from '@portcullis/inbox/inspector';
import { localEnv, localServices, type LocalService } from './local-services.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules/.bin/tsx');

const services = localServices(root);

// the inbox serves its web inspector from the built files
await buildInspector();

const children: ChildProcess[] = [];
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

function start(service: LocalService): void {
  const { name, entry } = service;
  // Own process groups: a Ctrl-C reaches this script only, which stops the services one signal each.
  const child = spawn(tsx, [join(root, entry)], {
    env: localEnv(service, process.env),
    stdio: 'inherit',
    detached: true,
  });
  child.on('exit', (code, signal) => {
    process.stderr.write(`${name} exited (${signal ?? code})\n`);
    stopAll(code ?? 1);
  });
  children.push(child);
}

/** Resolves once `url` answers 2xx; gives up after a minute (a service that exits stops everything first). */
async function healthy(url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within a minute`);
}

// the operator first: the others take their configuration from it and would only retry until it is up
const [operator, ...rest] = services;
try {
  if (operator) {
    start(operator);
    await healthy(operator.health);
  }
  rest.forEach(start);
  await Promise.all(rest.map((s) => healthy(s.health)));
  process.stdout.write(`
Portcullis is up (in-memory stores, resources from examples/resources; Ctrl-C stops it):
  gateway      http://localhost:8088/api          (try /api/ping)
  inbox        http://localhost:8089/             (web inspector; receive URLs /api/hook/<id>)
  ratelimit    127.0.0.1:8081 gRPC, http://localhost:8080/json, debug http://localhost:6070/
  operator     xDS 127.0.0.1:18000, http://localhost:8090/healthz, metrics http://localhost:9090/metrics
Every port is on 127.0.0.1 only; set a service's host variable to open one (HOST=0.0.0.0 npm start: see README).
`);
} catch (err: unknown) {
  process.stderr.write(`${(err as Error).message}\n`);
  stopAll(1);
}
