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

export interface ForwardLatency {
  /** From the capture's answer to the target receiving it (0 when the target had it first). */
  fromAck: Summary;
  /** From the capture being sent to the target receiving it. */
  fromSent: Summary;
}

/**
 * Capture → forward latency on a quiet queue: captures sent one at a time (each after the target had the one
 * before), timed against the target's arrival time (it notes `?seq=<n>`).
 */
export async function measureForwardLatency(o: ForwardLatencyOptions): Promise<ForwardLatency> {
  const received = async (atLeast: number): Promise<number> => {
    const r = await fetch(`${o.targetUrl}/received?atLeast=${atLeast}`, {
      signal: AbortSignal.timeout(10_000),
    });
    return ((await r.json()) as { count: number }).count;
  };
  const before = await received(0);
  const ackAt = new Map<string, number>();
  const sentAt = new Map<string, number>();
  const started = performance.now();
  for (let seq = 0; seq < o.captures; seq++) {
    sentAt.set(String(seq), epochMs());
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
  const since = (times: Map<string, number>): Float64Array =>
    Float64Array.from([...times].map(([seq, at]) => (arrivals[seq] ?? Number.NaN) - at));
  const fromAck = since(ackAt);
  if (fromAck.some(Number.isNaN)) throw new Error('the target did not note every capture');
  return {
    // the target may have it before the inbox's answer reached this process: 0
    fromAck: summarize(
      fromAck.map((ms) => Math.max(0, ms)),
      elapsedMs,
    ),
    fromSent: summarize(since(sentAt), elapsedMs),
  };
}
