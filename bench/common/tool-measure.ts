import { setTimeout as sleep } from 'node:timers/promises';
import type { Child } from './child-process.js';
import { startCpuMeter } from './cpu-meter.js';
import type { Measurement } from './measure.js';
import type { ToolLoad } from './tool-load.js';

/** Share of the measured window left out at each end of the CPU reading: the tool must still be running. */
const CPU_MARGIN_SHARE = 0.1;

export interface ToolMeasureOptions {
  warmupMs: number;
  durationMs: number;
  /** The processes whose CPU is reported as the server's: ids, each with the process group it leads. */
  servers: readonly number[];
  /** Processes that must stay up: the measurement fails if one exited. */
  watched: ReadonlyArray<Pick<Child, 'name' | 'isExited' | 'outputTail'>>;
  /** Called right before and right after the measured run, e.g. to read a backend's counters. */
  aroundMeasured?: { before(): Promise<void>; after(): Promise<void> };
}

/**
 * Prints the scenario, checks a sample of answers, warms up with one run of the tool, then measures a
 * second; closes `load` after. CPU shares are read over the middle of the measured run, while the tool
 * still runs. Errors add the sample's, the warm-up's and the measured run's.
 */
export async function measureWithTool(
  scenario: string,
  load: ToolLoad,
  o: ToolMeasureOptions,
): Promise<Measurement> {
  process.stdout.write(`running: ${scenario}\n`);
  try {
    const errorsByLabel = await load.checkSample();
    const warmup = await load.run(o.warmupMs).result;
    await o.aroundMeasured?.before();
    const run = load.run(o.durationMs);
    run.result.catch(() => undefined); // awaited below, once the CPU is read
    const marginMs = o.durationMs * CPU_MARGIN_SHARE;
    await sleep(marginMs);
    const meter = startCpuMeter(o.servers, [run.pid]);
    await sleep(o.durationMs - 2 * marginMs);
    const cpu = meter.stop();
    const result = await run.result;
    await o.aroundMeasured?.after();
    const dead = o.watched.find((c) => c.isExited());
    if (dead) throw new Error(`${dead.name} exited during "${scenario}":\n${dead.outputTail()}`);
    for (const [label, n] of [...warmup.errorsByLabel, ...result.errorsByLabel]) {
      errorsByLabel.set(label, (errorsByLabel.get(label) ?? 0) + n);
    }
    const errors = [...errorsByLabel.values()].reduce((a, b) => a + b, 0);
    return { scenario, summary: result.summary, errors, errorsByLabel, cpu };
  } finally {
    await load.close();
  }
}
