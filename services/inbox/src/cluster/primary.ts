import { superviseWorkers, type Logger } from '@portcullis/kit';
import { answerMetricsAsks } from './cluster-metrics.js';

/**
 * The primary of an inbox with `count` workers: it serves nothing itself. node:cluster hands each connection
 * on the shared port to one worker in turn; a live stream is served by the worker holding it, from that
 * process's one live reader. The primary replaces workers that exit, sums their `/metrics`, and on shutdown
 * tells each to drain and waits for all.
 */
export function startPrimary(o: { count: number; log: Logger }) {
  answerMetricsAsks();
  const workers = superviseWorkers({ count: o.count, log: o.log });
  return {
    beginShutdown: () => workers.beginShutdown(),
    close: () => workers.allExited(),
  };
}
