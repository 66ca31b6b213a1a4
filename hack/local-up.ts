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
const services: Array<{ name: string; entry: string; env: Record<string, string> }> = [
  {
    name: 'operator',
    entry: 'operator/src/main.ts',
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
    env: {
      BACKEND_TYPE: 'memory',
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

const children: ChildProcess[] = services.map(({ name, entry, env }) => {
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
