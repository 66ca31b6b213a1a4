import type { Logger } from '@portcullis/kit';
import type { Gauge } from 'prom-client';
import type { Outcome } from '../reconcile/types.js';
import type { StatusSink } from './status-writer.js';

/**
 * Writes statuses apart from the reconciles, so an edit never waits behind the first reconcile's thousands
 * of writes; outcomes queued behind a write in progress collapse into the newest per resource. Only the
 * leader writes. `write` resolves when the outcomes given (or newer ones) are written.
 */
export function createStatusQueue(o: {
  sink: StatusSink;
  isLeader: () => boolean;
  /** Outcomes queued or being written. */
  pending: Gauge;
  log: Logger;
}): { write(outcomes: readonly Outcome[]): Promise<void> } {
  let written: Promise<void> = Promise.resolve();
  const unwritten = new Map<string, Outcome>();
  let writing = 0;
  const report = (): void => o.pending.set(unwritten.size + writing);
  return {
    write(outcomes) {
      for (const outcome of outcomes) unwritten.set(outcome.resource.metadata.uid, outcome);
      report();
      written = written
        .then(async () => {
          const next = [...unwritten.values()];
          unwritten.clear();
          writing = next.length;
          if (next.length > 0 && o.isLeader()) await o.sink.write(next);
        })
        .catch((err: unknown) => o.log.error({ err }, 'statuses not written'))
        .finally(() => {
          writing = 0;
          report();
        });
      return written;
    },
  };
}
