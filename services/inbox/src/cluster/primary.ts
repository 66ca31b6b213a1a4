import { randomBytes } from 'node:crypto';
import { answerMetricsAsks, superviseWorkers, type Logger } from '@portcullis/kit';

/**
 * The primary of an inbox with `count` workers: it serves nothing itself. node:cluster hands each connection
 * on the shared port to one worker in turn; a live stream is served by the worker holding it, from that
 * process's one live reader. The primary replaces workers that exit, sums their `/metrics`, hands them one
 * session key when INBOX_SESSION_KEYS is not set, and on shutdown tells each to drain and waits for all.
 */
export function startPrimary(o: { count: number; sessionKeys: readonly string[]; log: Logger }) {
  answerMetricsAsks();
  // one key for every worker, or a sign-in would hold on the worker that took it only
  const env: Record<string, string> =
    o.sessionKeys.length > 0 ? {} : { INBOX_SESSION_KEYS: randomBytes(48).toString('base64url') };
  const workers = superviseWorkers({ count: o.count, log: o.log, env });
  return {
    beginShutdown: () => workers.beginShutdown(),
    close: () => workers.allExited(),
  };
}
