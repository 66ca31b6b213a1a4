import { setTimeout as sleep } from 'node:timers/promises';
import { compareStreamIds, isStreamId } from '../store/stream-id.js';
import { readEvents } from '../live/sse-parse.js';
import { computeRetryDelayMs } from '../worker/backoff.js';
import { describeFetchError, toCliError } from './api-client.js';
import { EndpointGoneError, UnreachableError } from './cli-errors.js';

// Follows an endpoint's live stream (GET …/stream) like EventSource, with what EventSource lacks: a bearer
// token. After a drop (network, inbox restart, `overflow`) it reconnects with backoff and `Last-Event-ID`,
// so the inbox replays what was missed; ids already handled are skipped, so nothing is shown twice.
// Only the first connection failing is fatal, and 401/404 always are.

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
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** Resolves when `signal` aborts; rejects with a CliError on a fatal failure. */
export async function followStream(o: FollowOptions): Promise<void> {
  const initialDelayMs = o.initialDelayMs ?? 500;
  const maxDelayMs = o.maxDelayMs ?? 30_000;
  let lastEventId = o.lastEventId;
  let connected = false;
  let attempt = 0;
  const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/stream${o.full ? '?full=1' : ''}`;
  while (!o.signal.aborted) {
    let reason: string;
    try {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        authorization: `Bearer ${o.token}`,
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      };
      const res = await fetch(new URL(path, o.host), { headers, signal: o.signal });
      if (res.status !== 200 || !res.body) {
        const err = toCliError(res.status, `endpoint ${o.endpointId}`, o.host);
        if (!connected || res.status === 401 || res.status === 404) throw err;
        reason = err.message;
      } else {
        connected = true;
        reason = 'stream ended';
        for await (const e of readEvents(res.body)) {
          if (e.event === 'ready') {
            attempt = 0;
            o.onReady?.();
            const ready = JSON.parse(e.data) as { lastEventId?: unknown };
            if (typeof ready.lastEventId === 'string' && isStreamId(ready.lastEventId)) {
              lastEventId ??= ready.lastEventId;
            }
          } else if (e.event === 'request' && e.id !== undefined) {
            if (lastEventId !== undefined && compareStreamIds(e.id, lastEventId) <= 0) continue;
            await o.onRequest({ id: e.id, data: JSON.parse(e.data) });
            lastEventId = e.id;
          } else if (e.event === 'deleted') {
            throw new EndpointGoneError(`endpoint ${o.endpointId}: deleted`);
          } else if (e.event === 'overflow' || e.event === 'error') {
            reason = `${e.event} event`;
            break;
          }
        }
      }
    } catch (e: unknown) {
      if (e instanceof Error && e.name === 'AbortError') return;
      if (!(e instanceof TypeError) && !isStreamReadError(e)) throw e;
      if (!connected) {
        throw new UnreachableError(`cannot reach the inbox at ${o.host}: ${describeFetchError(e)}`, {
          cause: e,
        });
      }
      reason = describeFetchError(e);
    }
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

/** A body read that broke off (socket closed mid-stream): undici reports it without a TypeError. */
function isStreamReadError(e: unknown): boolean {
  return (
    e instanceof Error && (e.name === 'SocketError' || (e as NodeJS.ErrnoException).code === 'ECONNRESET')
  );
}
