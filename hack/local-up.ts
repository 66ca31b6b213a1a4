// `npm start`: the platform on this machine with embedded defaults (in-memory stores, the examples under
// examples/), no cluster and no Redis. Each service runs as its own process, as in a cluster; Ctrl-C stops all.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInspector } from '../services/inbox/src/web/build-inspector.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules/.bin/tsx');

// The operator reads the custom resources from examples/resources (directory mode) and serves them over
// xDS on 18000; the rate-limit service, the gateway and the inbox take their rules, routes and endpoints from there, as they
// would in a cluster.
const services: Array<{ name: string; entry: string; health: string; env: Record<string, string> }> = [
  {
    name: 'operator',
    entry: 'operator/src/main.ts',
    health: 'http://127.0.0.1:8090/healthz',
    env: {
      OPERATOR_SOURCE: 'directory',
      OPERATOR_MANIFESTS_DIR: join(root, 'examples/resources'),
      XDS_HOST: '127.0.0.1',
      XDS_PORT: '18000',
      HEALTH_PORT: '8090',
      METRICS_PORT: '9090',
      LOG_LEVEL: 'info',
    },
  },
  {
    name: 'ratelimit',
    entry: 'services/ratelimit/src/main.ts',
    health: 'http://127.0.0.1:8080/healthcheck',
    env: {
      BACKEND_TYPE: 'memory',
      // the statistics are on http://127.0.0.1:6070/metrics; no statsd to send them to here
      USE_STATSD: 'false',
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: '127.0.0.1:18000',
      CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-local',
      CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '500ms',
      LOG_LEVEL: 'info',
    },
  },
  {
    name: 'gateway',
    entry: 'services/gateway/src/main.ts',
    health: 'http://127.0.0.1:8088/healthz',
    env: {
      GATEWAY_PORT: '8088',
      GATEWAY_XDS_SERVER_URL: '127.0.0.1:18000',
      GATEWAY_XDS_NODE_ID: 'gateway-local',
      GATEWAY_XDS_RETRY_INTERVAL: '500ms',
      GATEWAY_RATELIMIT_URL: '127.0.0.1:8081',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
  },
  {
    name: 'inbox',
    entry: 'services/inbox/src/main.ts',
    health: 'http://127.0.0.1:8089/healthz',
    env: {
      INBOX_PORT: '8089',
      INBOX_PUBLIC_URL: 'http://localhost:8089',
      INBOX_XDS_SERVER_URL: '127.0.0.1:18000',
      INBOX_XDS_NODE_ID: 'inbox-local',
      INBOX_XDS_RETRY_INTERVAL: '500ms',
      // each service keeps its accounts in its own memory here, so a cookie shared with the gateway on
      // localhost would only name a session the other does not know
      INBOX_SESSION_COOKIE: 'portcullis_inbox_session',
      LOG_LEVEL: 'info',
    },
  },
];

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

function start({ name, entry, env }: (typeof services)[number]): void {
  // Own process groups: a Ctrl-C reaches this script only, which stops the services one signal each.
  const child = spawn(tsx, [join(root, entry)], {
    env: { ...env, ...process.env },
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
`);
} catch (err: unknown) {
  process.stderr.write(`${(err as Error).message}\n`);
  stopAll(1);
}
