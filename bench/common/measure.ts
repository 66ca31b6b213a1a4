import type { Child } from './child-process.js';
import { startCpuMeter } from './cpu-meter.js';
import { drive, type Call } from './drive.js';
import { readProcessesRssBytes } from './process-group.js';
import type { Row } from './report.js';
import { summarize } from './stats.js';

/** A way to make calls to one server, closed once measured. */
export interface Load {
  call: Call;
  close(): void;
}

export interface MeasureOptions {
  warmupMs: number;
  durationMs: number;
  /** Calls in flight at any time. */
  concurrency: number;
  /** The processes whose CPU and memory are reported as the server's. */
  servers: readonly Child[];
  /** Children that must stay up: the measurement fails if one exited. */
  watched: readonly Child[];
  /** Called right before and right after the measured window, e.g. to read a backend's counters. */
  aroundMeasured?: { before(): Promise<void>; after(): Promise<void> };
}

export type Measurement = Omit<Row, 'ceiling'> & { errorsByLabel: Map<string, number> };

/** Prints the scenario, warms up, then drives `load` for the measured window; closes `load` after. */
export async function measure(scenario: string, load: Load, o: MeasureOptions): Promise<Measurement> {
  process.stdout.write(`running: ${scenario}\n`);
  try {
    const warmup = await drive({ call: load.call, concurrency: o.concurrency, durationMs: o.warmupMs });
    await o.aroundMeasured?.before();
    const servers = o.servers.map((c) => c.pid);
    const meter = startCpuMeter(servers);
    const result = await drive({ call: load.call, concurrency: o.concurrency, durationMs: o.durationMs });
    const cpu = meter.stop();
    const serverRssBytes = readProcessesRssBytes(servers);
    await o.aroundMeasured?.after();
    const dead = o.watched.find((c) => c.isExited());
    if (dead) throw new Error(`${dead.name} exited during "${scenario}":\n${dead.outputTail()}`);
    const errorsByLabel = new Map(warmup.errors);
    for (const [label, n] of result.errors) errorsByLabel.set(label, (errorsByLabel.get(label) ?? 0) + n);
    const errors = [...errorsByLabel.values()].reduce((a, b) => a + b, 0);
    return {
      scenario,
      summary: summarize(result.latenciesMs, result.durationMs),
      errors,
      errorsByLabel,
      cpu,
      serverRssBytes,
    };
  } finally {
    load.close();
  }
}

/** One line per kind of wrong answer: `errors in "<scenario>": <count> × <label>`. */
export function formatErrors(measurements: readonly Measurement[]): string[] {
  return measurements.flatMap((m) =>
    [...m.errorsByLabel].map(([label, count]) => `errors in "${m.scenario}": ${count} × ${label}`),
  );
}
