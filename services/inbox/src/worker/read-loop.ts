import type { Logger } from '@portcullis/kit';
import type { ForwardEndpoints } from './forward-endpoints.js';
import type { ForwardQueue } from '../forwarding-store/forward-queue.js';
import type { InFlight } from './in-flight.js';
import type { StopSignal } from './stop-signal.js';

export interface ReadLoopOptions {
  queue: ForwardQueue;
  endpoints: ForwardEndpoints;
  inFlight: InFlight;
  stop: StopSignal;
  log: Logger;
  pollMs: number;
  maxInFlight: number;
  now: () => number;
}

/** The loop reading new captures of the forwarding endpoints while there is room, until stopped. */
export interface ReadLoop {
  start(): void;
  /** Resolves once the loop has ended (at once when never started). */
  ended(): Promise<void>;
  /** When the loop last went round (`now()` milliseconds), past reading the endpoints. */
  lastLoopAt(): number | undefined;
  /** Resolves once the loop has first gone round, or once stopped. */
  wentRound(): Promise<void>;
}

export function createReadLoop(o: ReadLoopOptions): ReadLoop {
  let loop: Promise<void> | undefined;
  let loopAt: number | undefined;
  let firstRound = (): void => undefined;
  const wentRound = new Promise<void>((resolve) => (firstRound = resolve));
  o.stop.signal.addEventListener('abort', () => firstRound(), { once: true });

  const run = async (): Promise<void> => {
    let refreshedAt = -Infinity;
    while (!o.stop.isStopped()) {
      try {
        if (o.now() - refreshedAt >= o.pollMs) {
          await o.endpoints.refresh();
          refreshedAt = o.now();
        }
        loopAt = o.now();
        firstRound();
        if (o.inFlight.size() >= o.maxInFlight) {
          // a slot, or one poll interval: the loop goes round while every slot waits on a long retry
          await o.stop.on(o.inFlight.oneDone(), o.now() + o.pollMs);
          continue;
        }
        const ids = o.endpoints.ids();
        if (ids.length === 0) {
          await o.stop.until(o.now() + o.pollMs);
          continue;
        }
        const count = o.maxInFlight - o.inFlight.size();
        const items = await o.queue.readNew(ids, { count, blockMs: o.pollMs });
        for (const item of items) o.inFlight.begin(item);
      } catch (err: unknown) {
        if (o.stop.isStopped()) break;
        o.log.warn({ err }, 'reading captures to forward failed');
        await o.stop.until(o.now() + o.pollMs);
      }
    }
  };

  return {
    start() {
      loop = run();
    },
    ended: () => loop ?? Promise.resolve(),
    lastLoopAt: () => loopAt,
    wentRound: () => wentRound,
  };
}
