import {
  addProbeRoutes,
  createHttpApp,
  listenHttp,
  type Logger,
  type Part,
  type Readiness,
  type RunningServer,
} from '@portcullis/kit';
import type { Registry } from 'prom-client';
import { toHttpError } from '../error-mapper.js';
import type { Settings } from '../settings.js';

export interface ProbeServerOptions {
  readiness: Readiness;
  registry: Registry;
  log: Logger;
}

/** The worker's `/healthz`, `/readyz` and `/metrics`, on `INBOX_HOST` and `INBOX_WORKER_PORT`. */
export function createProbeServerPart(
  settings: Pick<Settings, 'host' | 'timeouts' | 'worker'>,
  o: ProbeServerOptions,
): Part & { port(): number | undefined } {
  const app = createHttpApp(o.log.child({ component: 'http' }), toHttpError, { timeouts: settings.timeouts });
  addProbeRoutes(app, o.readiness);
  app.get('/metrics', async (_request, reply) =>
    reply.type(o.registry.contentType).send(await o.registry.metrics()),
  );
  let server: RunningServer | undefined;
  return {
    name: 'http server',
    port: () => server?.port,
    start: async () => {
      server = await listenHttp(app, {
        host: settings.host,
        port: settings.worker.port,
        setting: 'INBOX_WORKER_PORT',
      });
      o.log.info({ port: server.port }, 'worker probes and metrics listening');
    },
    close: () => server?.close(),
  };
}
