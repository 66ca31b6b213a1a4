import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

/**
 * Starts an informer and restarts it whenever it stops on an error: client-node 1.x re-lists after 410
 * Gone by itself but gives up on anything else (a dropped connection, a failed list). Delays double from
 * `initialMs` to `maxMs` with jitter and reset after a successful start. `started` resolves after the first
 * successful start; `onSynced(false)` reports each stop.
 *
 * client-node's `start()` never rejects: a failed list or watch request fires `error` and `start()` still
 * resolves (the real API server answers a list with 429 "storage is (re)initializing" right after a CRD is
 * established, and with 403 until the RBAC binding exists). So a start counts as successful only if no
 * `error` fired during it.
 */
export function keepInformerRunning<T extends KubernetesObject>(
  informer: Informer<T>,
  o: { log: Logger; label: Record<string, string>; backoff?: Backoff; onSynced?: (synced: boolean) => void },
): { started: Promise<void>; stop(): Promise<void> } {
  const { initialMs, maxMs } = o.backoff ?? DEFAULT_BACKOFF;
  let failures = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let resolveStarted: (() => void) | undefined;
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));
  let errors = 0;
  const run = async (): Promise<void> => {
    if (stopped) return;
    const errorsBefore = errors;
    try {
      await informer.start();
    } catch (err: unknown) {
      restart(err);
      return;
    }
    // restart() has already scheduled the next try
    if (errors !== errorsBefore) return;
    failures = 0;
    o.onSynced?.(true);
    resolveStarted?.();
  };
  const restart = (err: unknown): void => {
    errors++;
    o.onSynced?.(false);
    if (stopped) return;
    clearTimeout(timer);
    const delayMs = Math.round(Math.min(maxMs, initialMs * 2 ** failures++) * (0.5 + Math.random() / 2));
    o.log.warn({ ...o.label, err, delayMs }, 'informer stopped, restarting');
    timer = setTimeout(() => void run(), delayMs);
  };
  informer.on('error', restart);
  void run();
  return {
    started,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
    },
  };
}
