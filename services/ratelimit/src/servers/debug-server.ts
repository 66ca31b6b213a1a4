import { Registry } from 'prom-client';
import {
  addProfileRoutes,
  createHttpApp,
  listenHttp,
  type Health,
  type HttpTimeouts,
  type Logger,
  type RunningServer,
  type WorkerProfiles,
} from '@portcullis/kit';
import { describeRuleSet } from '../config/rule-set.js';
import type { RateLimitService } from '../service.js';
import { toHttpError } from './error-mapper.js';
import type { Stats } from '../stats/stats.js';

/** What the debug port shows: this process's, or the workers' combined (`workers/cluster-view.ts`). */
export interface DebugView {
  /** `/rlconfig`: the loaded rules. */
  rules(): Promise<string>;
  /** `/stats`: `name: value`, sorted by name. */
  statsLines(): Promise<string[]>;
  /** `/metrics`: the Prometheus text. */
  metrics(): Promise<string>;
  /** `/health`: component → state. */
  health(): Promise<{ healthy: boolean; components: Record<string, boolean> }>;
}

export interface DebugServerOptions {
  host: string;
  port: number;
  timeouts: HttpTimeouts;
  view: DebugView;
  log: Logger;
  /** With worker processes: their profiles, for `/debug/pprof/...?worker=<id>`. */
  workers?: WorkerProfiles;
}

/** The view of this process. */
export function createLocalDebugView(o: {
  service: RateLimitService;
  stats: Stats;
  registry: Registry;
  health: Health;
}): DebugView {
  return {
    rules: () => {
      const rules = o.service.currentRules();
      return Promise.resolve(rules ? describeRuleSet(rules) : '');
    },
    statsLines: () => Promise.resolve(o.stats.lines()),
    metrics: () => o.registry.metrics(),
    health: () => Promise.resolve({ healthy: o.health.isHealthy(), components: o.health.snapshot() }),
  };
}

const PATHS: Record<string, string> = {
  '/rlconfig': 'print out the currently loaded configuration for debugging',
  '/stats': 'print out stats',
  '/metrics': 'Prometheus metrics',
  '/health': 'health of each component, as JSON',
  '/debug/pprof/':
    'CPU profile, heap snapshot, event-loop delay and GC figures of the process serving this port, or with ?worker=<id> of that worker',
};

/** The debug port: an index, the loaded rules, the statistics, Prometheus metrics and `/debug/pprof/`. */
export async function startDebugServer(o: DebugServerOptions): Promise<RunningServer> {
  const log = o.log.child({ component: 'debug' });
  const app = createHttpApp(log, toHttpError, { timeouts: o.timeouts });
  addProfileRoutes(app, log, o.workers ? { workers: o.workers } : {});
  const text = 'text/plain; charset=utf-8';
  app.get('/', (_req, reply) => {
    const lines = Object.entries(PATHS).map(([path, what]) => `${path}: ${what}`);
    void reply.type(text).send(`${lines.join('\n')}\n`);
  });
  app.get('/rlconfig', async (_req, reply) => reply.type(text).send(await o.view.rules()));
  app.get('/stats', async (_req, reply) =>
    reply.type(text).send(`${(await o.view.statsLines()).join('\n')}\n`),
  );
  app.get('/metrics', async (_req, reply) =>
    reply.type(Registry.PROMETHEUS_CONTENT_TYPE).send(await o.view.metrics()),
  );
  app.get('/health', async (_req, reply) => {
    const { healthy, components } = await o.view.health();
    return reply.code(healthy ? 200 : 500).send(components);
  });
  return listenHttp(app, { host: o.host, port: o.port, setting: 'DEBUG_PORT' });
}
