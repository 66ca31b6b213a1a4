import { createErrorMapper, createHttpApp, listenHttp, type Logger, type Part } from '@portcullis/kit';
import type { Registry } from 'prom-client';

type ServerPart = Part & { readonly port: number };

/** `/healthz` (the loop answers) and `/readyz` (the source has synced), with whether this replica leads. */
export function createHealthServerPart(o: {
  listener: { host: string; port: number };
  isReady: () => boolean;
  isLeader: () => boolean;
  log: Logger;
}): ServerPart {
  const app = createHttpApp(o.log.child({ component: 'health' }), internalError);
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_req, reply) => {
    const ready = o.isReady();
    void reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'syncing', leader: o.isLeader() });
  });
  return servePart('health server', app, { ...o.listener, setting: 'HEALTH_PORT' });
}

/** `/metrics` of the operator's registry. */
export function createMetricsServerPart(o: {
  listener: { host: string; port: number };
  registry: Registry;
  log: Logger;
}): ServerPart {
  const app = createHttpApp(o.log.child({ component: 'metrics' }), internalError);
  app.get('/metrics', async (_req, reply) =>
    reply.type(o.registry.contentType).send(await o.registry.metrics()),
  );
  return servePart('metrics server', app, { ...o.listener, setting: 'METRICS_PORT' });
}

function servePart(
  name: string,
  app: ReturnType<typeof createHttpApp>,
  listener: { host: string; port: number; setting: string },
): ServerPart {
  let port = 0;
  return {
    name,
    get port() {
      return port;
    },
    start: async () => {
      port = (await listenHttp(app, listener)).port;
    },
    close: () => app.close(),
  };
}

/** The health and metrics endpoints have no errors of their own: kit's edge errors, anything else `INTERNAL`. */
const internalError = createErrorMapper([]);
