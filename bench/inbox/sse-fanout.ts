import { request, type ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { summarize, type Summary } from '../common/stats.js';

const EVENT_TIMEOUT_MS = 10_000;

export interface SseFanoutOptions {
  port: number;
  /** Endpoints to capture on, each with its token; the subscribers are spread over them evenly. */
  endpoints: ReadonlyArray<{ id: string; token: string }>;
  subscribers: number;
  /** Captures sent one at a time, to the endpoints in turn. */
  captures: number;
}

export interface SseFanout {
  /** From the capture's answer to each subscriber's event (0 when the event came first). */
  fromAck: Summary;
  /** From the capture being sent to each subscriber's event. */
  fromSent: Summary;
}

/** One SSE stream on a connection of its own; `onEvent` gets each event's `seq` query value. */
function subscribe(
  o: { port: number; id: string; token: string },
  onEvent: (seq: number) => void,
): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: o.port,
        path: `/api/endpoints/${o.id}/stream`,
        headers: { accept: 'text/event-stream', authorization: `Bearer ${o.token}` },
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`SSE subscribe answered ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (text: string) => {
          buffer += text;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const seq = /[?&]seq=(\d+)/.exec(buffer.slice(0, end))?.[1];
            buffer = buffer.slice(end + 2);
            if (seq !== undefined) onEvent(Number(seq));
          }
        });
        res.on('error', () => undefined); // closed once measured
        resolve(req);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Capture-to-SSE latency with `subscribers` streams open over `endpoints`: each capture is sent once every
 * stream of its endpoint has the one before, and each stream's event is timed against the capture's answer
 * and its sending. The subscribers are this process (a Node client): its own event loop is in the figures.
 */
export async function measureSseFanout(o: SseFanoutOptions): Promise<SseFanout> {
  const perEndpoint = Math.ceil(o.subscribers / o.endpoints.length);
  const fromAck: number[] = [];
  const fromSent: number[] = [];
  const sentAt = new Map<number, number>();
  const ackAt = new Map<number, number>();
  const arrivals = new Map<number, number[]>();
  let expected = 0;
  let wake: (() => void) | undefined;
  const onEvent = (seq: number): void => {
    const list = arrivals.get(seq);
    if (!list) return;
    list.push(performance.now());
    if (list.length === expected) wake?.();
  };
  const streams: ClientRequest[] = [];
  try {
    for (let i = 0; i < o.subscribers; i++) {
      const endpoint = o.endpoints[Math.floor(i / perEndpoint)] ?? o.endpoints[0];
      if (endpoint) streams.push(await subscribe({ port: o.port, ...endpoint }, onEvent));
    }
    // a stream starts from now: give the last subscriptions a moment to be registered
    await new Promise((r) => setTimeout(r, 500));
    const started = performance.now();
    for (let seq = 0; seq < o.captures; seq++) {
      const endpointIndex = seq % o.endpoints.length;
      const endpoint = o.endpoints[endpointIndex];
      if (!endpoint) break;
      expected = Math.min(perEndpoint, o.subscribers - endpointIndex * perEndpoint);
      arrivals.set(seq, []);
      const all = new Promise<void>((resolve) => (wake = resolve));
      sentAt.set(seq, performance.now());
      const r = await fetch(`http://127.0.0.1:${o.port}/api/hook/${endpoint.id}?seq=${seq}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"event":"fan-out"}',
      });
      await r.arrayBuffer();
      ackAt.set(seq, performance.now());
      if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
      if ((arrivals.get(seq)?.length ?? 0) < expected) {
        const timer = setTimeout(() => wake?.(), EVENT_TIMEOUT_MS);
        await all;
        clearTimeout(timer);
      }
      const got = arrivals.get(seq)?.length ?? 0;
      if (got < expected) throw new Error(`capture ${seq}: ${got} of ${expected} streams had it after 10 s`);
      for (const at of arrivals.get(seq) ?? []) {
        fromAck.push(Math.max(0, at - (ackAt.get(seq) ?? at)));
        fromSent.push(at - (sentAt.get(seq) ?? at));
      }
      arrivals.delete(seq);
    }
    const elapsedMs = performance.now() - started;
    return {
      fromAck: summarize(Float64Array.from(fromAck), elapsedMs),
      fromSent: summarize(Float64Array.from(fromSent), elapsedMs),
    };
  } finally {
    for (const s of streams) s.destroy();
  }
}
