import { setTimeout as sleep } from 'node:timers/promises';
import { compareStreamIds, isStreamId } from '../contract/stream-id.js';
import { readEvents } from '../contract/sse-parse.js';
import { computeRetryDelayMs } from '../contract/backoff.js';
import { describeFetchError, toCliError } from './api-client.js';
import { EndpointGoneError, UnreachableError } from './cli-errors.js';

// Follows an endpoint's live stream (GET …/stream) like EventSource, with what EventSource lacks: a bearer
// token. After a drop (network, inbox restart, `overflow`) it reconnects with backoff and `Last-Event-ID`,
// so the inbox replays what was missed; ids already handled are skipped, so nothing is shown twice.
// Only the first connection failing is fatal, and 401/404 always are. A process that was suspended (a
// laptop asleep, SIGSTOP) does not trust its connection when it wakes: it may be half-open, its peer long
// gone. A timer that comes late by `SUSPEND_GAP_MS` (or an event read after such a gap) ends it, and the
// stream is resumed from the last id handled.

/** A tick this late means the process did not run meanwhile. */
const SUSPEND_GAP_MS = 5000;
const TICK_MS = 1000;

export interface StreamEvent {
  id: string;
  data: unknown;
}

export interface FollowOptions {
  host: string;
  endpointId: string;
  token: string;
  /** `?full=1`: events carry the full record (headers, body). */
  full: boolean;
  /** Start after this request id; without it, from now. */
  lastEventId?: string | undefined;
  signal: AbortSignal;
  /** Called once per capture, in order; the next is not read until it settles. */
  onRequest: (e: StreamEvent) => Promise<void> | void;
  /** Told each time the stream (re)opens: from here on no capture is missed. */
  onReady?: () => void;
  /** Told before each reconnection. */
  onReconnect?: (o: { delayMs: number; reason: string }) => void;
  /**
   * Told once per stream opened with a `Last-Event-ID` (a reconnection, or `lastEventId` given), once the
   * captures stored meanwhile are handled: how many, and how long the gap was (since the connection was
   * lost, the process suspended, or `gapSince`).
   */
  onCaughtUp?: (o: { count: number; gapMs: number }) => void;
  /** When the gap before the first connection began (ms since the epoch), with `lastEventId`. */
  gapSince?: number;
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** Resolves when `signal` aborts; rejects with a CliError on a fatal failure. */
export async function followStream(o: FollowOptions): Promise<void> {
  const watch = watchSuspension();
  try {
    await follow(o, watch);
  } finally {
    watch.stop();
  }
}

const SUSPENDED = 'the process was suspended';

async function follow(o: FollowOptions, watch: SuspensionWatch): Promise<void> {
  const initialDelayMs = o.initialDelayMs ?? 500;
  const maxDelayMs = o.maxDelayMs ?? 30_000;
  let lastEventId = o.lastEventId;
  let connected = false;
  let attempt = 0;
  let gapSince = o.gapSince ?? Date.now();
  const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/stream${o.full ? '?full=1' : ''}`;
  while (!o.signal.aborted) {
    let reason: string;
    const connection = watch.connection();
    try {
      const resumeFrom = lastEventId;
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        authorization: `Bearer ${o.token}`,
        ...(resumeFrom === undefined ? {} : { 'last-event-id': resumeFrom }),
      };
      const signal = AbortSignal.any([o.signal, connection]);
      const res = await fetch(new URL(path, o.host), { headers, signal });
      if (res.status !== 200 || !res.body) {
        const err = toCliError(res.status, `endpoint ${o.endpointId}`, o.host);
        if (!connected || res.status === 401 || res.status === 404) throw err;
        reason = err.message;
      } else {
        connected = true;
        reason = 'stream ended';
        let catchUp: { until: string; count: number } | undefined;
        const reportCaughtUp = (): void => {
          if (catchUp) o.onCaughtUp?.({ count: catchUp.count, gapMs: Date.now() - gapSince });
          catchUp = undefined;
        };
        for await (const e of readEvents(res.body)) {
          // read after a suspension: the connection may be stale; resume from the store instead
          if (watch.check()) break;
          if (e.event === 'ready') {
            attempt = 0;
            o.onReady?.();
            const ready = JSON.parse(e.data) as { lastEventId?: unknown; replayUntil?: unknown };
            if (typeof ready.lastEventId === 'string' && isStreamId(ready.lastEventId)) {
              lastEventId ??= ready.lastEventId;
            }
            if (resumeFrom !== undefined && typeof ready.replayUntil === 'string') {
              catchUp = { until: ready.replayUntil, count: 0 };
              if (compareStreamIds(ready.replayUntil, resumeFrom) <= 0) reportCaughtUp();
            }
          } else if (e.event === 'request' && e.id !== undefined) {
            if (lastEventId !== undefined && compareStreamIds(e.id, lastEventId) <= 0) continue;
            await o.onRequest({ id: e.id, data: JSON.parse(e.data) });
            lastEventId = e.id;
            if (catchUp) {
              catchUp.count += 1;
              if (compareStreamIds(e.id, catchUp.until) >= 0) reportCaughtUp();
            }
          } else if (e.event === 'deleted') {
            throw new EndpointGoneError(`endpoint ${o.endpointId}: deleted`);
          } else if (e.event === 'overflow' || e.event === 'error') {
            reason = `${e.event} event`;
            break;
          }
        }
      }
    } catch (e: unknown) {
      if (isAborted(o.signal)) return;
      if (!connection.aborted) {
        if (!(e instanceof TypeError) && !isStreamReadError(e)) throw e;
        if (!connected) {
          throw new UnreachableError(`cannot reach the inbox at ${o.host}: ${describeFetchError(e)}`, {
            cause: e,
          });
        }
      }
      reason = describeFetchError(e);
    }
    const suspendedAt = watch.suspendedAt();
    if (suspendedAt !== undefined) reason = SUSPENDED;
    gapSince = suspendedAt ?? Date.now();
    attempt += 1;
    const delayMs = computeRetryDelayMs({ attempt, initialDelayMs, maxDelayMs, random: Math.random });
    o.onReconnect?.({ delayMs, reason });
    try {
      await sleep(delayMs, undefined, { signal: o.signal });
    } catch {
      return;
    }
  }
}

interface SuspensionWatch {
  /** A signal for the next connection: aborted when a late tick shows the process was suspended. */
  connection(): AbortSignal;
  /** True (and the connection aborted) when the process was suspended since the last tick or check. */
  check(): boolean;
  /** When the suspension that ended the last connection began, once; undefined if none did. */
  suspendedAt(): number | undefined;
  stop(): void;
}

function watchSuspension(): SuspensionWatch {
  let lastTickAt = Date.now();
  let controller = new AbortController();
  let suspendedAt: number | undefined;
  const check = (): boolean => {
    const now = Date.now();
    const since = lastTickAt;
    lastTickAt = now;
    if (now - since - TICK_MS < SUSPEND_GAP_MS) return false;
    suspendedAt = since;
    controller.abort();
    return true;
  };
  const ticker = setInterval(check, TICK_MS);
  return {
    connection() {
      controller = new AbortController();
      return controller.signal;
    },
    check,
    suspendedAt() {
      const at = suspendedAt;
      suspendedAt = undefined;
      return at;
    },
    stop: () => clearInterval(ticker),
  };
}

/** A call, not a property read: TypeScript keeps the loop condition's narrowing across awaits. */
const isAborted = (signal: AbortSignal): boolean => signal.aborted;

/** A body read that broke off (socket closed mid-stream): undici reports it without a TypeError. */
function isStreamReadError(e: unknown): boolean {
  return (
    e instanceof Error && (e.name === 'SocketError' || (e as NodeJS.ErrnoException).code === 'ECONNRESET')
  );
}
