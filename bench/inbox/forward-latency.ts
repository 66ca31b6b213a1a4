import { performance } from 'node:perf_hooks';
import { summarize, type Summary } from '../common/stats.js';

export interface ForwardLatencyOptions {
  /** The inbox's receive URL of the forwarding endpoint. */
  hookUrl: string;
  /** The target server (`target-server.ts`): `/received` and `/arrivals`. */
  targetUrl: string;
  captures: number;
}

const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * Capture → forward latency on a quiet queue: captures sent one at a time (each after the target had the one
 * before), timed from the capture's answer to the target receiving it (the target notes `?seq=<n>`).
 */
export async function measureForwardLatency(o: ForwardLatencyOptions): Promise<Summary> {
  const received = async (atLeast: number): Promise<number> => {
    const r = await fetch(`${o.targetUrl}/received?atLeast=${atLeast}`, {
      signal: AbortSignal.timeout(10_000),
    });
    return ((await r.json()) as { count: number }).count;
  };
  const before = await received(0);
  const ackAt = new Map<string, number>();
  const started = performance.now();
  for (let seq = 0; seq < o.captures; seq++) {
    const r = await fetch(`${o.hookUrl}?seq=${seq}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"forward-latency"}',
    });
    await r.arrayBuffer();
    ackAt.set(String(seq), epochMs());
    if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
    await received(before + seq + 1);
  }
  const elapsedMs = performance.now() - started;
  const arrivals = (await (await fetch(`${o.targetUrl}/arrivals`)).json()) as Record<string, number>;
  // the target may have it before the inbox's answer reached this process: 0
  const latencies = [...ackAt].map(([seq, at]) => Math.max(0, (arrivals[seq] ?? Number.NaN) - at));
  if (latencies.some(Number.isNaN)) throw new Error('the target did not note every capture');
  return summarize(Float64Array.from(latencies), elapsedMs);
}
