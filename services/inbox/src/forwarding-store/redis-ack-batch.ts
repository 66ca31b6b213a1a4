import { batchPerTurn } from '@portcullis/kit';
import type { RedisClient } from '@portcullis/redis';
import { callRedis } from '../store/redis-caller.js';
import { FORWARD_GROUP } from '../store/redis-keys.js';

interface Waiting {
  endpointId: string;
  requestId: string;
  settle: (err?: Error) => void;
}

/**
 * Acknowledges captures for the forward queue, the acks of one event-loop turn together: one XACK per
 * endpoint with every id, sent in one write, instead of a command and a write per capture. Each ack
 * resolves once its XACK is answered, so a capture is acknowledged no earlier than before, just up to a
 * turn later.
 */
export function createAckBatch(
  redis: RedisClient,
  streamOf: (endpointId: string) => string,
): (endpointId: string, requestId: string) => Promise<void> {
  const flush = async (batch: Waiting[]): Promise<void> => {
    const byEndpoint = new Map<string, Waiting[]>();
    for (const w of batch) {
      const waiting = byEndpoint.get(w.endpointId);
      if (waiting) waiting.push(w);
      else byEndpoint.set(w.endpointId, [w]);
    }
    const pipeline = redis.pipeline();
    for (const [endpointId, waiting] of byEndpoint) {
      pipeline.xack(streamOf(endpointId), FORWARD_GROUP, ...waiting.map((w) => w.requestId));
    }
    try {
      const replies = (await pipeline.exec()) ?? [];
      [...byEndpoint.values()].forEach((waiting, i) => {
        const err = replies[i]?.[0] ?? undefined;
        for (const w of waiting) w.settle(err);
      });
    } catch (err: unknown) {
      for (const w of batch) w.settle(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const ackInTurn = batchPerTurn<Waiting>((batch) => void flush(batch));
  return (endpointId, requestId) =>
    callRedis(
      'XACK',
      () =>
        new Promise<void>((resolve, reject) =>
          ackInTurn({ endpointId, requestId, settle: (err) => (err ? reject(err) : resolve()) }),
        ),
    );
}
