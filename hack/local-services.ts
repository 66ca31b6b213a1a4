import { join } from 'node:path';

export interface LocalService {
  name: string;
  entry: string;
  health: string;
  env: Record<string, string>;
}

/**
 * The services `npm start` runs (hack/local-up.ts), in start order, with their environment; the platform
 * tests start them with the same. The operator reads the custom resources from examples/resources (directory
 * mode) and serves them over xDS on 18000; the rate-limit service, the gateway and the inbox take their rules,
 * routes and endpoints from there, as they would in a cluster. Every listener is on 127.0.0.1 (the services'
 * own defaults, which the chart keeps, are 0.0.0.0, as a container needs): a laptop's ports, the ratelimit's
 * debug port with its heap snapshots among them, are not the network's.
 */
export function localServices(root: string): LocalService[] {
  return [
    {
      name: 'operator',
      entry: 'operator/src/main.ts',
      health: 'http://127.0.0.1:8090/healthz',
      env: {
        OPERATOR_SOURCE: 'directory',
        OPERATOR_MANIFESTS_DIR: join(root, 'examples/resources'),
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '18000',
        HEALTH_HOST: '127.0.0.1',
        HEALTH_PORT: '8090',
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: '9090',
        LOG_LEVEL: 'info',
      },
    },
    {
      name: 'ratelimit',
      entry: 'services/ratelimit/src/main.ts',
      health: 'http://127.0.0.1:8080/healthcheck',
      env: {
        HOST: '127.0.0.1',
        GRPC_HOST: '127.0.0.1',
        DEBUG_HOST: '127.0.0.1',
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
        GATEWAY_HOST: '127.0.0.1',
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
        LOG_LEVEL: 'info',
      },
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
