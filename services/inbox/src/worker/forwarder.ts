import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ForwardTarget } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import type { Capture, ForwardAttempt } from '../contract/capture-records.js';
import type { EndpointRecord, InboxStore } from '../store/types.js';
import { computeRetryDelayMs, isRetryableStatus, parseRetryAfterMs } from '../contract/backoff.js';
import { createCircuitBreakers, type BreakerSettings, type DeliveryVerdict } from './circuit-breaker.js';
import type { CircuitView } from '../forwarding-store/circuit-reports.js';
import type { DeadLetters } from '../forwarding-store/dead-letters.js';
import { createKeepAlive, deliver, type DeliveryResult } from '../delivery/deliver.js';
import type { EgressPolicy } from '../delivery/egress-policy.js';
import { buildForwardRequest } from '../delivery/forward-request.js';
import type { ForwardQueue, QueuedCapture } from '../forwarding-store/forward-queue.js';
import { createTargetSlots } from './target-slots.js';
import type { AttemptOutcome } from './worker-metrics.js';

export interface ForwarderOptions {
  store: InboxStore;
  queue: ForwardQueue;
  deadLetters: DeadLetters;
  breaker: BreakerSettings;
  egress: EgressPolicy;
  log: Logger;
  /** A capture idle this long is claimed; live ones are marked every third of it. `INBOX_WORKER_CLAIM_IDLE`, ≥ 30ms. */
  claimIdleMs: number;
  pollMs: number;
  maxInFlight: number;
  now?: () => number;
  /** In [0, 1): the jitter. */
  random?: () => number;
  /** Told each time a target's circuit changes (see `circuits()`). */
  onCircuitChange?: () => void;
  /** Told of each attempt recorded: its outcome and number (1 for the first). */
  onAttempt?: (outcome: AttemptOutcome, attempt: number) => void;
}

export interface Forwarder {
  start(): void;
  /**
   * Stops reading and claiming, lets each delivery under way finish and be recorded, then returns. A capture
   * not finished by then (a retry still to wait for, a target still to try) stays pending, unacknowledged,
   * for a worker to claim: at least once. The queue is closed last.
   */
  stop(): Promise<void>;
  /**
   * When the reading loop last went round (`now()` milliseconds), past reading the endpoints; undefined
   * before it first has. Readiness checks it is recent.
   */
  lastLoopAt(): number | undefined;
  /** Resolves once the loop has first gone round (the store answered), or once stopped. */
  wentRound(): Promise<void>;
  /** Captures being forwarded now. */
  inFlightCount(): number;
  /** The managed endpoints with a forward target enabled, as last read. */
  endpointIds(): string[];
  /** The targets whose circuit is not closed, or has failures. */
  circuits(): CircuitView[];
}

type TargetOutcome = 'done' | 'stopped';

/** A delivery's result, failures marked retryable (the target's fault) or not (refused before sending). */
type AttemptResult =
  Exclude<DeliveryResult, { kind: 'failed' }> | { kind: 'failed'; error: string; retryable: boolean };

/**
 * Forwards each capture of a managed endpoint to its enabled targets, one after another, and acknowledges
 * it once every target has an outcome recorded (delivered, or dead after its attempts). Retries wait in
 * this process; the wait is recorded (`nextAttemptAt`), so a worker that claims the capture resumes it.
 */
export function createForwarder(o: ForwarderOptions): Forwarder {
  const log = o.log.child({ component: 'forwarder' });
  const now = o.now ?? Date.now;
  const random = o.random ?? Math.random;
  const stopping = new AbortController();
  // every retry wait in flight listens to it, and removes its listener when it ends: past
  // Node's default of 10 that is concurrency, not a leak
  setMaxListeners(0, stopping.signal);
  const isStopping = (): boolean => stopping.signal.aborted;
  const keepAlive = createKeepAlive();
  const slots = createTargetSlots();
  const breakers = createCircuitBreakers({
    ...o.breaker,
    now,
    ...(o.onCircuitChange ? { onChange: o.onCircuitChange } : {}),
  });
  const inFlight = new Map<string, { endpointId: string; requestId: string; done: Promise<void> }>();
  let endpoints = new Map<string, EndpointRecord>();
  let loop: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let maintaining = false;
  let loopAt: number | undefined;
  let firstRound = (): void => undefined;
  const wentRound = new Promise<void>((resolve) => (firstRound = resolve));

  const refreshEndpoints = async (): Promise<void> => {
    const list = (await o.store.listManagedEndpoints()).filter((e) => e.forward.some((t) => t.enabled));
    await o.queue.ensureGroups(list.filter((e) => !endpoints.has(e.id)).map((e) => e.id));
    endpoints = new Map(list.map((e) => [e.id, e]));
  };

  const begin = (item: QueuedCapture): void => {
    const key = `${item.endpointId} ${item.capture.id}`;
    if (inFlight.has(key) || stopping.signal.aborted) return;
    const done = forwardCapture(item)
      .catch((err: unknown) => {
        // left pending: claimed again once idle
        log.warn({ endpointId: item.endpointId, requestId: item.capture.id, err }, 'forwarding interrupted');
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, { endpointId: item.endpointId, requestId: item.capture.id, done });
  };

  const forwardCapture = async ({ endpointId, capture }: QueuedCapture): Promise<void> => {
    const endpoint = endpoints.get(endpointId) ?? (await o.store.getEndpoint(endpointId));
    const targets = endpoint?.forward.filter((t) => t.enabled) ?? [];
    const history = await o.store.listForwardAttempts(endpointId, capture.id);
    for (const target of targets) {
      const past = history.filter((a) => a.target === target.url);
      if ((await forwardToTarget({ endpointId, capture }, target, past)) === 'stopped') return;
    }
    await o.queue.ack(endpointId, capture.id);
  };

  const forwardToTarget = async (
    { endpointId, capture }: QueuedCapture,
    target: ForwardTarget,
    past: readonly ForwardAttempt[],
  ): Promise<TargetOutcome> => {
    const last = past.at(-1);
    // redriven: attempt 0 in the history, so the count starts again
    if (last && last.outcome !== 'retrying' && last.outcome !== 'redriven') return 'done';
    let attempt = (last?.attempt ?? 0) + 1;
    let dueAt = last?.nextAttemptAt ? Date.parse(last.nextAttemptAt) : now();
    for (;;) {
      if (!(await waitUntilDue(dueAt))) return 'stopped';
      const result = await deliverWhenAdmitted({ endpointId, target: target.url }, capture, target);
      if (result === 'stopped' || result.kind === 'aborted') return 'stopped';
      const at = now();
      const record: ForwardAttempt = {
        target: target.url,
        attempt,
        ...(result.kind === 'answered' ? { status: result.status } : { error: result.error }),
        at: new Date(at).toISOString(),
        outcome: 'delivered',
      };
      const retryable = result.kind === 'answered' ? isRetryableStatus(result.status) : result.retryable;
      if (result.kind === 'answered' && result.status >= 200 && result.status < 300) {
        await o.store.recordForwardAttempt(endpointId, capture.id, record);
        o.onAttempt?.('delivered', attempt);
        return 'done';
      }
      if (!retryable || attempt >= target.maxAttempts) {
        // the dead letter first: a crash before the record repeats the attempt, never loses the letter
        await o.deadLetters.add({
          endpointId,
          requestId: capture.id,
          target: target.url,
          attempts: String(attempt),
          last: record.status === undefined ? (record.error ?? '') : String(record.status),
          at: record.at,
        });
        await o.store.recordForwardAttempt(endpointId, capture.id, { ...record, outcome: 'dead' });
        o.onAttempt?.('dead', attempt);
        log.warn({ endpointId, requestId: capture.id, target: target.url, attempt }, 'capture dead-lettered');
        return 'done';
      }
      const retryAfter = result.kind === 'answered' ? result.retryAfter : undefined;
      dueAt =
        at +
        computeRetryDelayMs({
          attempt,
          initialDelayMs: target.initialDelaySeconds * 1000,
          maxDelayMs: target.maxDelaySeconds * 1000,
          retryAfterMs: parseRetryAfterMs(retryAfter, at),
          random,
        });
      await o.store.recordForwardAttempt(endpointId, capture.id, {
        ...record,
        outcome: 'retrying',
        nextAttemptAt: new Date(dueAt).toISOString(),
      });
      o.onAttempt?.('retrying', attempt);
      attempt += 1;
    }
  };

  /**
   * One attempt once the target has a free slot (`maxConcurrent`) and its circuit lets it go; the waits are
   * not attempts. `stopped` when the forwarder stops while waiting.
   */
  const deliverWhenAdmitted = async (
    key: { endpointId: string; target: string },
    capture: Capture,
    target: ForwardTarget,
  ): Promise<AttemptResult | 'stopped'> => {
    const release = await slots.acquire(
      `${key.endpointId} ${key.target}`,
      target.maxConcurrent,
      stopping.signal,
    );
    if (!release) return 'stopped';
    try {
      const wait = { until: waitUntilDue, on: waitFor };
      if (!(await breakers.admit(key, wait))) return 'stopped';
      let verdict: DeliveryVerdict = 'neither';
      try {
        // not aborted by stop(): a delivery under way finishes and is recorded, so it is not sent twice
        const result = await attemptDelivery(capture, target);
        verdict = breakerVerdict(result);
        return result;
      } finally {
        breakers.report(key, verdict);
      }
    } finally {
      release();
    }
  };

  const attemptDelivery = async (capture: Capture, target: ForwardTarget): Promise<AttemptResult> => {
    const request = buildForwardRequest(capture, target);
    const decision = await o.egress.check(request.url);
    if (!decision.allowed)
      return { kind: 'failed', error: `egress refused: ${decision.reason}`, retryable: false };
    const result = await deliver(request, {
      pinned: decision,
      timeoutMs: target.timeoutSeconds * 1000,
      keepAlive,
    });
    return result.kind === 'failed' ? { ...result, retryable: true } : result;
  };

  /** False when the worker stopped first. */
  const waitFor = async (event: Promise<void>): Promise<boolean> => {
    let onAbort = (): void => undefined;
    const aborted = new Promise<void>((resolve) => (onAbort = resolve));
    stopping.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([event, aborted]);
    } finally {
      stopping.signal.removeEventListener('abort', onAbort);
    }
    return !stopping.signal.aborted;
  };

  /** False when the worker stopped first. */
  const waitUntilDue = async (dueAt: number): Promise<boolean> => {
    const waitMs = dueAt - now();
    if (waitMs > 0) {
      try {
        await sleep(waitMs, undefined, { signal: stopping.signal });
      } catch {
        // aborted: stopping
      }
    }
    return !stopping.signal.aborted;
  };

  /** Heartbeat for this worker's captures, then claims of other workers' idle ones. */
  const maintain = async (): Promise<void> => {
    if (maintaining) return;
    maintaining = true;
    try {
      const mine = new Map<string, string[]>();
      for (const f of inFlight.values())
        mine.set(f.endpointId, [...(mine.get(f.endpointId) ?? []), f.requestId]);
      for (const [endpointId, ids] of mine) await o.queue.touch(endpointId, ids);
      for (const endpointId of endpoints.keys()) {
        const room = o.maxInFlight - inFlight.size;
        if (room <= 0 || stopping.signal.aborted) break;
        const claimed = await o.queue.claimStale(endpointId, { minIdleMs: o.claimIdleMs, count: room });
        for (const item of claimed) begin(item);
      }
    } catch (err: unknown) {
      log.warn({ err }, 'claiming idle captures failed');
    } finally {
      maintaining = false;
    }
  };

  const run = async (): Promise<void> => {
    let refreshedAt = -Infinity;
    while (!stopping.signal.aborted) {
      try {
        if (now() - refreshedAt >= o.pollMs) {
          await refreshEndpoints();
          refreshedAt = now();
        }
        loopAt = now();
        firstRound();
        if (inFlight.size >= o.maxInFlight) {
          // a slot, or one poll interval: the loop goes round while every slot waits on a long retry
          await Promise.race([...[...inFlight.values()].map((f) => f.done), waitUntilDue(now() + o.pollMs)]);
          continue;
        }
        const ids = [...endpoints.keys()];
        if (ids.length === 0) {
          await waitUntilDue(now() + o.pollMs);
          continue;
        }
        const items = await o.queue.readNew(ids, { count: o.maxInFlight - inFlight.size, blockMs: o.pollMs });
        for (const item of items) begin(item);
      } catch (err: unknown) {
        if (isStopping()) break;
        log.warn({ err }, 'reading captures to forward failed');
        await waitUntilDue(now() + o.pollMs);
      }
    }
  };

  return {
    start() {
      loop = run();
      // a third of the idle time: a live worker's captures never look idle to the others
      timer = setInterval(() => void maintain(), Math.floor(o.claimIdleMs / 3));
    },
    async stop() {
      stopping.abort();
      firstRound();
      o.queue.stopReading();
      await loop;
      // the heartbeat goes on (claims do not): captures being finished must not look idle to other workers
      await Promise.all([...inFlight.values()].map((f) => f.done));
      clearInterval(timer);
      o.queue.close();
      keepAlive.close();
    },
    lastLoopAt: () => loopAt,
    wentRound: () => wentRound,
    inFlightCount: () => inFlight.size,
    endpointIds: () => [...endpoints.keys()],
    circuits: () => breakers.views(),
  };
}

/** What a delivery's result tells the circuit breaker: the target is down (failure) or up (success). */
function breakerVerdict(result: AttemptResult): DeliveryVerdict {
  if (result.kind === 'answered') return result.status >= 500 ? 'failure' : 'success';
  // an egress refusal says nothing of the target
  if (result.kind === 'failed') return result.retryable ? 'failure' : 'neither';
  return 'neither';
}
