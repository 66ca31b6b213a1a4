import type { Logger } from '@portcullis/kit';
import type { InboxStore, ManagedEndpoint } from '../store/types.js';

export interface ManagedSync {
  /**
   * Makes the store's managed endpoints `endpoints`. Resolves after the first attempt, whatever its
   * outcome: a failed one is retried with backoff until it succeeds or a newer set replaces it, so an
   * accepted (ACKed) update is never lost to a Redis outage.
   */
  apply(endpoints: readonly ManagedEndpoint[]): Promise<void>;
  /** Applies the last set again, as `apply` does: the store may have lost it (Redis restarted empty). */
  reapply(): Promise<void>;
  close(): void;
}

const MAX_RETRY_MS = 30_000;

export function createManagedSync(o: { store: InboxStore; log: Logger; retryMs?: number }): ManagedSync {
  const log = o.log.child({ component: 'managed-endpoints' });
  const firstRetryMs = o.retryMs ?? 1000;
  let desired: readonly ManagedEndpoint[] | undefined;
  let applied: readonly ManagedEndpoint[] | undefined;
  // set by reapply: the applied set may be gone, even during an attempt that succeeds after the loss
  let stale = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = firstRetryMs;
  let closed = false;

  const attempt = async (): Promise<void> => {
    const wanted = desired;
    if (wanted === undefined || (wanted === applied && !stale) || closed) return;
    stale = false;
    try {
      const { conflicts } = await o.store.syncManagedEndpoints(wanted);
      for (const id of conflicts) {
        log.error({ endpointId: id }, 'endpoint id held by an anonymous endpoint, resource not applied');
      }
      log.info({ endpoints: wanted.length - conflicts.length }, 'managed endpoints applied');
      applied = wanted;
      retryMs = firstRetryMs;
      await attempt(); // a newer set may have arrived meanwhile
    } catch (err: unknown) {
      log.warn({ err, retryMs }, 'managed endpoints not applied, retrying');
      clearTimeout(timer);
      timer = setTimeout(() => void run(), retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  };
  const run = (): Promise<void> => {
    running ??= attempt().finally(() => (running = undefined));
    return running;
  };

  const applyNow = async (): Promise<void> => {
    clearTimeout(timer);
    retryMs = firstRetryMs;
    // one attempt at a time: a set arriving during one is applied right after it
    if (running) await running;
    await run();
  };

  return {
    apply(endpoints) {
      desired = endpoints;
      return applyNow();
    },
    reapply() {
      stale = true;
      return applyNow();
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
