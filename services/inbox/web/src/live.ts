import { readEvents } from '../../src/contract/sse-parse.js';
import { endpointPath, type CaptureSummary, type ForwardingEvent } from './api.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export interface FollowOptions {
  endpointId: string;
  token: string | undefined;
  /** Start after this request id (the newest one shown); without it, from now. */
  after: string | undefined;
  /** Ask for full records (`?full=1`): what a filter on headers or body needs. */
  full?: boolean;
  signal: AbortSignal;
  onRequest: (summary: CaptureSummary) => void;
  /** An attempt to forward a capture, recorded as it happens. */
  onForwarding: (event: ForwardingEvent) => void;
  /**
   * Connected again after a drop: captures missed meanwhile come again, forwarding events do not (they have
   * no id), so outcomes shown may be stale.
   */
  onReconnected: () => void;
  onState: (state: LiveState, detail?: string) => void;
}

const MIN_DELAY_MS = 1000;
const MAX_DELAY_MS = 15_000;

/**
 * Follows an endpoint's live stream (`GET …/stream`). fetch rather than EventSource: an anonymous endpoint
 * needs its bearer token. After a drop it reconnects with `Last-Event-ID`, so the inbox sends what was
 * missed and nothing twice; it stops for good on 401/404, when the endpoint is deleted, or when the share
 * link it follows is revoked.
 */
export async function followEndpoint(o: FollowOptions): Promise<void> {
  // a call, not a property read: TypeScript would keep the loop condition's narrowing across awaits
  const stopped = (): boolean => o.signal.aborted;
  let lastId = o.after;
  let delayMs = MIN_DELAY_MS;
  let connectedBefore = false;
  o.onState('connecting');
  while (!stopped()) {
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
      if (lastId !== undefined) headers['last-event-id'] = lastId;
      const res = await fetch(endpointPath(o.endpointId, o.full === true ? '/stream?full=1' : '/stream'), {
        headers,
        credentials: 'same-origin',
        signal: o.signal,
      });
      if (res.status === 401 || res.status === 404) {
        o.onState('closed', res.status === 404 ? 'endpoint not found' : 'not allowed');
        return;
      }
      if (res.ok && res.body) {
        for await (const e of readEvents(res.body)) {
          if (e.event === 'ready') {
            delayMs = MIN_DELAY_MS;
            o.onState('live');
            const ready = JSON.parse(e.data) as { lastEventId?: string };
            lastId ??= ready.lastEventId;
            if (connectedBefore) o.onReconnected();
            connectedBefore = true;
          } else if (e.event === 'request' && e.id !== undefined) {
            lastId = e.id;
            o.onRequest(JSON.parse(e.data) as CaptureSummary);
          } else if (e.event === 'forwarding') {
            o.onForwarding(JSON.parse(e.data) as ForwardingEvent);
          } else if (e.event === 'deleted') {
            o.onState('closed', 'endpoint deleted');
            return;
          } else if (e.event === 'revoked') {
            o.onState('closed', 'share link revoked');
            return;
          }
        }
      }
    } catch {
      if (stopped()) return;
    }
    o.onState('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(MAX_DELAY_MS, delayMs * 2);
  }
}
