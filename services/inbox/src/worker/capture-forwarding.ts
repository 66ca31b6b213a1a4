import type { ForwardTarget } from '@portcullis/config';
import type { ForwardAttempt } from '../contract/capture-records.js';
import type { InboxStore } from '../store/types.js';
import type { AttemptRecorder } from './attempt-recorder.js';
import type { ForwardEndpoints } from './forward-endpoints.js';
import type { ForwardQueue, QueuedCapture } from '../forwarding-store/forward-queue.js';
import { isDelivered, isRetried, resumeAttempts, scheduleRetry } from './retry-schedule.js';
import type { StopSignal } from './stop-signal.js';
import type { TargetDelivery } from './target-delivery.js';

export interface CaptureForwardingOptions {
  store: InboxStore;
  queue: ForwardQueue;
  endpoints: ForwardEndpoints;
  delivery: TargetDelivery;
  recorder: AttemptRecorder;
  stop: StopSignal;
  now: () => number;
  /** In [0, 1): the jitter. */
  random: () => number;
}

type TargetOutcome = 'done' | 'stopped';

/**
 * Forwards one capture to its endpoint's enabled targets, one after another, and acknowledges it once every
 * target has an outcome recorded (delivered, or dead after its attempts). Each target resumes where its
 * history of the capture left off. Returns early, the capture left unacknowledged, when the forwarder stops.
 */
export async function forwardCapture(o: CaptureForwardingOptions, item: QueuedCapture): Promise<void> {
  const { endpointId, capture } = item;
  const endpoint = await o.endpoints.find(endpointId);
  const targets = endpoint?.forward.filter((t) => t.enabled) ?? [];
  // a fresh capture has no history: one Redis round trip less per forward
  const history = item.fresh ? [] : await o.store.listForwardAttempts(endpointId, capture.id);
  for (const target of targets) {
    const past = history.filter((a) => a.target === target.url);
    if ((await forwardToTarget(o, { item, target, past })) === 'stopped') return;
  }
  await o.queue.ack(endpointId, capture.id);
}

/** Attempts until delivered or dead; a retry waits in this process, its due time recorded first. */
async function forwardToTarget(
  o: CaptureForwardingOptions,
  job: { item: QueuedCapture; target: ForwardTarget; past: readonly ForwardAttempt[] },
): Promise<TargetOutcome> {
  const { item, target } = job;
  const resumed = resumeAttempts(job.past, o.now);
  if (!resumed) return 'done';
  let { attempt, dueAt } = resumed;
  for (;;) {
    if (!(await o.stop.until(dueAt))) return 'stopped';
    const result = await o.delivery.attempt(
      { endpointId: item.endpointId, target: target.url },
      item.capture,
      target,
    );
    if (result === 'stopped' || result.kind === 'aborted') return 'stopped';
    const at = o.now();
    const key = { endpointId: item.endpointId, requestId: item.capture.id, target: target.url, attempt };
    if (isDelivered(result)) {
      await o.recorder.delivered(key, result, at);
      return 'done';
    }
    if (!isRetried(result, { attempt, target })) {
      await o.recorder.dead(key, result, at);
      return 'done';
    }
    dueAt = scheduleRetry(result, { attempt, target, at, random: o.random });
    await o.recorder.retrying(key, result, { at, dueAt });
    attempt += 1;
  }
}
