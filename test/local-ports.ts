import { freePort } from '@portcullis/testing';

/**
 * Free ports for the services of `npm start` (the fixed ones may be taken on a shared machine), wired
 * together: per service the variables that move its ports and point it at the others. The names do not
 * overlap, so `merged` is the environment one `npm start` takes for all of them.
 */
export async function movedLocalPorts() {
  const names = ['XDS', 'HEALTH', 'METRICS', 'HTTP', 'GRPC', 'DEBUG', 'GATEWAY', 'INBOX', 'ORDERS'] as const;
  const p = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await freePort()]))) as Record<
    (typeof names)[number],
    number
  >;
  const xds = `127.0.0.1:${p.XDS}`;
  const env: Record<string, Record<string, string>> = {
    operator: { XDS_PORT: `${p.XDS}`, HEALTH_PORT: `${p.HEALTH}`, METRICS_PORT: `${p.METRICS}` },
    ratelimit: {
      PORT: `${p.HTTP}`,
      GRPC_PORT: `${p.GRPC}`,
      DEBUG_PORT: `${p.DEBUG}`,
      CONFIG_GRPC_XDS_SERVER_URL: xds,
    },
    gateway: {
      GATEWAY_PORT: `${p.GATEWAY}`,
      GATEWAY_XDS_SERVER_URL: xds,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${p.GRPC}`,
    },
    inbox: { INBOX_PORT: `${p.INBOX}`, INBOX_XDS_SERVER_URL: xds },
    orders: { ORDERS_PORT: `${p.ORDERS}` },
  };
  const merged = Object.assign({}, ...Object.values(env)) as Record<string, string>;
  return { env, merged, ports: p, all: Object.values(p) };
}
