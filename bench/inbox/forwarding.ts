import { performance } from 'node:perf_hooks';
import type { Child } from '../common/child-process.js';
import { startCpuMeter } from '../common/cpu-meter.js';
import type { H2load } from '../common/h2load.js';
import type { Measurement } from '../common/measure.js';
import { readProcessesRssBytes } from '../common/process-group.js';

export interface ForwardingOptions {
  /** h2load set up to capture on the endpoint whose forward target is `targetUrl`. */
  capture: H2load;
  /** The target server (`target-server.ts`), asked how many requests it has received. */
  targetUrl: string;
  warmupCaptures: number;
  captures: number;
  /** The longest wait for the target to have received every capture of a round. */
  timeoutMs: number;
  /** The processes whose CPU is reported as the server's. */
  servers: readonly Child[];
  /** Children that must stay up: the measurement fails if one exited. */
  watched: readonly Child[];
}

export type ForwardingMeasurement = Measurement & {
  /** From the first capture sent to the last one answered. */
  capturedMs: number;
  /** From the first capture sent to the target having received the last: what the rate is over. */
  deliveredMs: number;
};

interface Round {
  forwarded: number;
  durationMs: number;
  capturedMs: number;
  errors: Map<string, number>;
}

/**
 * Forwarded requests/s end to end: after a warm-up round, `captures` captures are sent by h2load (as many at
 * a time as it has connections) while the worker forwards them; the time runs from the first capture sent to the target having
 * received every stored one. No latency percentiles: under a burst they would measure the queue. Closes
 * `capture` once measured.
 */
export async function measureForwarding(
  scenario: string,
  o: ForwardingOptions,
): Promise<ForwardingMeasurement> {
  process.stdout.write(`running: ${scenario}\n`);
  try {
    const warmup = await forwardRound(o, o.warmupCaptures);
    const servers = o.servers.map((c) => c.pid);
    // h2load has exited by the end of the round, so its CPU cannot be read: the client's share stays empty
    const meter = startCpuMeter(servers, []);
    const round = await forwardRound(o, o.captures);
    const cpu = { ...meter.stop(), client: undefined };
    const serverRssBytes = readProcessesRssBytes(servers);
    const dead = o.watched.find((c) => c.isExited());
    if (dead) throw new Error(`${dead.name} exited during "${scenario}":\n${dead.outputTail()}`);
    const errorsByLabel = new Map(warmup.errors);
    for (const [label, n] of round.errors) errorsByLabel.set(label, (errorsByLabel.get(label) ?? 0) + n);
    return {
      scenario,
      summary: {
        count: round.forwarded,
        perSecond: (round.forwarded * 1000) / round.durationMs,
        p50Ms: Number.NaN,
        p99Ms: Number.NaN,
      },
      errors: [...errorsByLabel.values()].reduce((a, b) => a + b, 0),
      errorsByLabel,
      cpu,
      serverRssBytes,
      capturedMs: round.capturedMs,
      deliveredMs: round.durationMs,
    };
  } finally {
    await o.capture.close();
  }
}

async function forwardRound(o: ForwardingOptions, captures: number): Promise<Round> {
  const before = await waitForReceived(o, 0);
  const startedAt = performance.now();
  const sent = await o.capture.runCount(captures).result;
  const capturedMs = performance.now() - startedAt;
  // a refused capture is not stored, so never forwarded
  const stored = captures - [...sent.errorsByLabel.values()].reduce((a, b) => a + b, 0);
  await waitForReceived(o, before + stored);
  return {
    forwarded: stored,
    durationMs: performance.now() - startedAt,
    capturedMs,
    errors: sent.errorsByLabel,
  };
}

/** Resolves with the target's count once it has received `atLeast` requests (a long poll, no sleeps). */
async function waitForReceived(o: ForwardingOptions, atLeast: number): Promise<number> {
  const ask = async (n: number, signal: AbortSignal): Promise<number> => {
    const r = await fetch(`${o.targetUrl}/received?atLeast=${n}`, { signal });
    return ((await r.json()) as { count: number }).count;
  };
  try {
    return await ask(atLeast, AbortSignal.timeout(o.timeoutMs));
  } catch (err: unknown) {
    if (!(err instanceof Error) || err.name !== 'TimeoutError') throw err;
    const count = await ask(0, AbortSignal.timeout(o.timeoutMs));
    const dead = o.watched.filter((c) => c.isExited()).map((c) => `${c.name} exited:\n${c.outputTail()}`);
    throw new Error(
      [`the target had ${count} of ${atLeast} requests after ${o.timeoutMs} ms`, ...dead].join('\n'),
    );
  }
}
