import { performance } from 'node:perf_hooks';
import { summarize, type Summary } from '../common/stats.js';

export interface SseLatencyOptions {
  baseUrl: string;
  endpointId: string;
  token: string;
  captures: number;
}

const nowMs = (): number => performance.timeOrigin + performance.now();

/**
 * Capture-to-SSE latency: one subscriber reads the endpoint's stream while captures are sent one at a
 * time, each carrying its send time (in the body, and in the query, which the event repeats); the latency
 * is the event's arrival minus that time.
 */
export async function measureSseLatency(o: SseLatencyOptions): Promise<Summary> {
  const controller = new AbortController();
  const res = await fetch(`${o.baseUrl}/api/endpoints/${o.endpointId}/stream`, {
    headers: { authorization: `Bearer ${o.token}` },
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`SSE subscribe answered ${res.status}`);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const latencies: number[] = [];
  let waiting: (() => void) | undefined;
  let buffer = '';
  const readLoop = (async () => {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch {
        return; // aborted once measured
      }
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const t = /[?&]t=([\d.]+)/.exec(event);
        if (!t?.[1]) continue;
        latencies.push(nowMs() - Number(t[1]));
        waiting?.();
      }
    }
  })();
  // the stream starts from now: give the subscription a moment to be registered
  await new Promise((r) => setTimeout(r, 200));
  try {
    const started = performance.now();
    for (let i = 0; i < o.captures; i++) {
      const arrived = new Promise<void>((resolve) => (waiting = resolve));
      const t = nowMs().toFixed(3);
      const r = await fetch(`${o.baseUrl}/api/hook/${o.endpointId}?t=${t}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sentAtMs: Number(t) }),
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
      await arrived;
    }
    return summarize(Float64Array.from(latencies), performance.now() - started);
  } finally {
    controller.abort();
    await readLoop;
  }
}
