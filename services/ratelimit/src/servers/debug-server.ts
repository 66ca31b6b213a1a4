import type { Registry } from 'prom-client';
import {
  createHttpApp,
  listenHttp,
  type Health,
  type HttpTimeouts,
  type Logger,
  type RunningServer,
} from '@portcullis/kit';
import { describeRuleSet } from '../config/rule-set.js';
import type { RateLimitService } from '../service.js';
import { toHttpError } from './error-mapper.js';
import type { Stats } from '../stats/stats.js';

export interface DebugServerOptions {
  host: string;
  port: number;
  timeouts: HttpTimeouts;
  service: RateLimitService;
  stats: Stats;
  registry: Registry;
  health: Health;
  log: Logger;
}

const PATHS: Record<string, string> = {
  '/rlconfig': 'print out the currently loaded configuration for debugging',
  '/stats': 'print out stats',
  '/metrics': 'Prometheus metrics',
  '/health': 'health of each component, as JSON',
};

/** The debug port: an index, the loaded rules, the statistics and Prometheus metrics. */
export async function startDebugServer(o: DebugServerOptions): Promise<RunningServer> {
  const app = createHttpApp(o.log.child({ component: 'debug' }), toHttpError, { timeouts: o.timeouts });
  const text = 'text/plain; charset=utf-8';
  app.get('/', (_req, reply) => {
    const lines = Object.entries(PATHS).map(([path, what]) => `${path}: ${what}`);
    void reply.type(text).send(`${lines.join('\n')}\n`);
  });
  app.get('/rlconfig', (_req, reply) => {
    const rules = o.service.currentRules();
    void reply.type(text).send(rules ? describeRuleSet(rules) : '');
  });
  app.get('/stats', (_req, reply) => {
    void reply.type(text).send(`${o.stats.lines().join('\n')}\n`);
  });
  app.get('/metrics', async (_req, reply) => {
    return reply.type(o.registry.contentType).send(await o.registry.metrics());
  });
  app.get('/health', (_req, reply) => {
    void reply.code(o.health.isHealthy() ? 200 : 500).send(o.health.snapshot());
  });
  return listenHttp(app, o);
}
