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
const envOf = (service: LocalService): NodeJS.ProcessEnv => localEnv(service, process.env);

// the inbox serves its web inspector from the built files
await buildInspector();

interface Running {
  service: LocalService;
  child: ChildProcess;
  exited: Promise<void>;
}
const running: Running[] = [];
let stopping = false;
// a function, as the flag changes in callbacks TypeScript does not follow
const isStopping = (): boolean => stopping;

/** Signals `r` and resolves once it has exited. */
function stop(r: Running, signal: NodeJS.Signals): Promise<void> {
  if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill(signal);
  return r.exited;
}

/**
 * Stops the services, the operator last: the others hold xDS streams to it, which would only retry (and
 * warn) while it is gone. Ctrl-C is passed on as SIGINT, which no service waits a drain delay for.
 */
async function stopAll(code: number, signal: NodeJS.Signals): Promise<never> {
  stopping = true;
  // Ctrl-C reaches npm, tsx and this script at once, and npm and tsx pass it on again: later signals are
  // those copies, not a second Ctrl-C. A service that hangs is killed after a while instead.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  setTimeout(() => {
    const hung = running.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    process.stderr.write(`npm start: ${hung.map((r) => r.service.name).join(', ')} did not stop; killed\n`);
    for (const r of hung) r.child.kill('SIGKILL');
    process.exit(1);
  }, 10_000).unref();
  const [operator, ...rest] = running;
  await Promise.all(rest.map((r) => stop(r, signal)));
  if (operator) await stop(operator, signal);
  process.exit(code);
}
const onSignal = (signal: NodeJS.Signals): void => {
  if (!stopping) void stopAll(0, signal);
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

function start(service: LocalService): void {
  // Own process groups: a Ctrl-C reaches this script only, which stops the services one signal each.
  const child = spawn(tsx, [join(root, service.entry)], {
    env: envOf(service),
    stdio: 'inherit',
    detached: true,
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      resolve();
      if (stopping) return;
      // the service said why on its way out (settings, a taken port): say what became of the rest
      process.stderr.write(
        `npm start: stopped, as ${service.name} exited (code ${code ?? 'signal'}); see its lines above\n`,
      );
      void stopAll(code || 1, 'SIGINT');
    });
  });
  running.push({ service, child, exited });
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
    await healthy(operator.health(envOf(operator)));
  }
  rest.forEach(start);
  await Promise.all(rest.map((s) => healthy(s.health(envOf(s)))));
  if (!isStopping()) process.stdout.write(summary());
} catch (err: unknown) {
  if (!isStopping()) {
    process.stderr.write(`npm start: ${(err as Error).message}\n`);
    void stopAll(1, 'SIGINT');
  }
}

function summary(): string {
  const env = (name: string): NodeJS.ProcessEnv => {
    const service = services.find((s) => s.name === name);
    return service ? envOf(service) : {};
  };
  const { GATEWAY_PORT, GATEWAY_AUTH } = env('gateway');
  const { INBOX_PORT } = env('inbox');
  const { PORT } = env('ratelimit');
  const { XDS_PORT, HEALTH_PORT } = env('operator');
  const { ORDERS_PORT } = env('orders');
  return `
Portcullis is up (in-memory stores, resources from examples/resources; Ctrl-C stops it):
  gateway      http://localhost:${GATEWAY_PORT}/api          (try /api/ping and /api/v1/orders/1)
  inbox        http://localhost:${INBOX_PORT}/             (web inspector; receive URLs /api/hook/<id>)
  ratelimit    http://localhost:${PORT}/json
  operator     xDS 127.0.0.1:${XDS_PORT}, http://localhost:${HEALTH_PORT}/healthz
  orders       http://localhost:${ORDERS_PORT}/internal/orders   (the example backend of /api/v1/orders)
Sign-in (GATEWAY_AUTH=${GATEWAY_AUTH || 'none'}): accounts in .portcullis/accounts.json; add one with
npx tsx hack/create-user.ts <name>. Every port is on 127.0.0.1 only (HOST=0.0.0.0 npm start: see README).
`;
}
