import { join } from 'node:path';

export interface LocalService {
  name: string;
  entry: string;
  /** The URL that answers 2xx once the service is up, on the port its environment (`localEnv`) sets. */
  health(env: NodeJS.ProcessEnv): string;
  env: Record<string, string>;
}

/** Where `npm start`'s gateway keeps its accounts (no Redis here), and `hack/create-user.ts` adds them. */
export function localAccountsFile(root: string): string {
  return join(root, '.portcullis/accounts.json');
}

/** The port `name` sets in `env`; every local service's port variable has a default below. */
function portOf(env: NodeJS.ProcessEnv, name: string): string {
  const port = env[name];
  if (port === undefined || port === '') throw new Error(`${name} is not set`);
  return port;
}

/**
 * The services `npm start` runs (hack/local-up.ts), in start order, with their environment; the platform
 * tests start them with the same. The operator reads the custom resources from examples/resources (directory
 * mode) and serves them over xDS on 18000; the rate-limit service, the gateway and the inbox take their rules,
 * routes and endpoints from there, as they would in a cluster. Every listener is on 127.0.0.1 (the services'
 * own defaults, which the chart keeps, are 0.0.0.0, as a container needs): a laptop's ports, the ratelimit's
 * debug port with its heap snapshots among them, are not the network's. Each logs at `warn` but for the one
 * line that says where it listens (`LOG_LEVEL=info npm start` shows the rest), and stops at once: no load
 * balancer here to wait for. An example orders service answers the example ApiRoute's `orders` backend.
 */
export function localServices(root: string): LocalService[] {
  return [
    {
      name: 'operator',
      entry: 'operator/src/main.ts',
      health: (env) => `http://127.0.0.1:${portOf(env, 'HEALTH_PORT')}/healthz`,
      env: {
        OPERATOR_SOURCE: 'directory',
        OPERATOR_MANIFESTS_DIR: join(root, 'examples/resources'),
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '18000',
        HEALTH_HOST: '127.0.0.1',
        HEALTH_PORT: '8090',
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: '9090',
        LOG_LEVEL: 'warn',
      },
    },
    {
      name: 'ratelimit',
      entry: 'services/ratelimit/src/main.ts',
      health: (env) => `http://127.0.0.1:${portOf(env, 'PORT')}/healthcheck`,
      env: {
        HOST: '127.0.0.1',
        PORT: '8080',
        GRPC_PORT: '8081',
        DEBUG_PORT: '6070',
        GRPC_HOST: '127.0.0.1',
        DEBUG_HOST: '127.0.0.1',
        BACKEND_TYPE: 'memory',
        // the statistics are on http://127.0.0.1:6070/metrics; no statsd to send them to here
        USE_STATSD: 'false',
        CONFIG_TYPE: 'GRPC_XDS_SOTW',
        CONFIG_GRPC_XDS_SERVER_URL: '127.0.0.1:18000',
        CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-local',
        CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '500ms',
        LOG_LEVEL: 'warn',
      },
    },
    {
      name: 'gateway',
      entry: 'services/gateway/src/main.ts',
      health: (env) => `http://127.0.0.1:${portOf(env, 'GATEWAY_PORT')}/healthz`,
      env: {
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '8088',
        GATEWAY_XDS_SERVER_URL: '127.0.0.1:18000',
        GATEWAY_XDS_NODE_ID: 'gateway-local',
        GATEWAY_XDS_RETRY_INTERVAL: '500ms',
        GATEWAY_RATELIMIT_URL: '127.0.0.1:8081',
        GATEWAY_BACKEND_HOST: '127.0.0.1',
        GATEWAY_SHUTDOWN_DELAY: '0s',
        GATEWAY_ACCOUNTS_FILE: localAccountsFile(root),
        LOG_LEVEL: 'warn',
      },
    },
    {
      name: 'inbox',
      entry: 'services/inbox/src/main.ts',
      health: (env) => `http://127.0.0.1:${portOf(env, 'INBOX_PORT')}/healthz`,
      env: {
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: '8089',
        INBOX_PUBLIC_URL: 'http://localhost:8089',
        INBOX_XDS_SERVER_URL: '127.0.0.1:18000',
        INBOX_XDS_NODE_ID: 'inbox-local',
        INBOX_XDS_RETRY_INTERVAL: '500ms',
        // each service keeps its accounts in its own memory here, so a cookie shared with the gateway on
        // localhost would only name a session the other does not know
        INBOX_SESSION_COOKIE: 'portcullis_inbox_session',
        // the inbox forwards in its own process (memory store), and the example targets are on this machine
        INBOX_EGRESS_ALLOW_PRIVATE: 'true',
        INBOX_SHUTDOWN_DELAY: '0s',
        LOG_LEVEL: 'warn',
      },
    },
    {
      name: 'orders',
      entry: 'hack/example-orders.ts',
      health: (env) => `http://127.0.0.1:${portOf(env, 'ORDERS_PORT')}/healthz`,
      // the `orders` backend of examples/resources/apiroute-users.yaml (port 3001, on GATEWAY_BACKEND_HOST)
      env: { ORDERS_HOST: '127.0.0.1', ORDERS_PORT: '3001' },
    },
  ];
}

/**
 * A service's environment under `npm start`: its own above, then the caller's environment, which wins, so
 * `HOST=0.0.0.0 npm start` opens the ratelimit's HTTP port to the network.
 */
export function localEnv(service: LocalService, callerEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...service.env, ...callerEnv };
}
