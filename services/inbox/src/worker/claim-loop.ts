import type { Logger } from '@portcullis/kit';
import type { ForwardEndpoints } from './forward-endpoints.js';
import type { ForwardQueue } from '../forwarding-store/forward-queue.js';
import type { InFlight } from './in-flight.js';
import type { StopSignal } from './stop-signal.js';

export interface ClaimLoopOptions {
  queue: ForwardQueue;
  endpoints: ForwardEndpoints;
  inFlight: InFlight;
  stop: StopSignal;
  log: Logger;
  /** A capture idle this long is claimed; live ones are marked every third of it. */
  claimIdleMs: number;
  maxInFlight: number;
}

/**
 * Every third of the claim idle time, so a live worker's captures never look idle to the others: a heartbeat
 * for this forwarder's captures, then claims of other workers' idle ones while there is room. Once the
 * forwarder stops, the heartbeat goes on (claims do not) until closed: captures being finished must not look
 * idle to other workers.
 */
export function startClaimLoop(o: ClaimLoopOptions): { close(): void } {
  let maintaining = false;
  const maintain = async (): Promise<void> => {
    if (maintaining) return;
    maintaining = true;
    try {
      for (const [endpointId, ids] of o.inFlight.byEndpoint()) await o.queue.touch(endpointId, ids);
      for (const endpointId of o.endpoints.ids()) {
        const room = o.maxInFlight - o.inFlight.size();
        if (room <= 0 || o.stop.isStopped()) break;
        const claimed = await o.queue.claimStale(endpointId, { minIdleMs: o.claimIdleMs, count: room });
        for (const item of claimed) o.inFlight.begin(item);
      }
    } catch (err: unknown) {
      o.log.warn({ err }, 'claiming idle captures failed');
    } finally {
      maintaining = false;
    }
  };
  const timer = setInterval(() => void maintain(), Math.floor(o.claimIdleMs / 3));
  return { close: () => clearInterval(timer) };
}
