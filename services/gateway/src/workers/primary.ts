import { answerMetricsAsks, superviseWorkers, type Draining, type Logger } from '@portcullis/kit';
import { loadKeys } from '../keys.js';
import type { Settings } from '../settings.js';

/**
 * The primary of `count` worker processes, each running the gateway on the shared port (node:cluster hands
 * each new connection to one of them in turn). It generates the local-mode keys once, before any worker
 * reads them, adds up the workers' metrics for `/metrics`, and replaces a worker that exits.
 */
export async function startPrimary(
  settings: Readonly<Settings>,
  o: { count: number; log: Logger },
): Promise<Draining> {
  const { log } = o;
  await loadKeys({
    jwtSecret: settings.jwt.secret,
    sessionKeys: settings.session.keys,
    stateDir: settings.stateDir,
    log,
  });
  answerMetricsAsks();
  const workers = superviseWorkers({ count: o.count, log });
  return {
    beginShutdown: () => workers.beginShutdown(),
    close: () => workers.allExited(),
  };
}
