import { setTimeout as sleep } from 'node:timers/promises';
import type { Child } from './child-process.js';
import { startCpuMeter } from './cpu-meter.js';
import type { Measurement } from './measure.js';
import { readProcessesRssBytes } from './process-group.js';
import { addCounts, combineRuns, type RunFigures } from './repeat.js';
import type { ToolLoad } from './tool-load.js';

/** Share of the measured window left out at each end of the CPU reading: the tool must still be running. */
const CPU_MARGIN_SHARE = 0.1;

export interface ToolMeasureOptions {
  warmupMs: number;
  durationMs: number;
  /** Measured runs, one after the other after the one warm-up; the figures are their medians. 1 by default. */
  repeat?: number;
  /** The processes whose CPU and memory are the server's: ids, each with the process group it leads. */
  servers: readonly number[];
  /** Processes that must stay up: the measurement fails if one exited. */
  watched: ReadonlyArray<Pick<Child, 'name' | 'isExited' | 'outputTail'>>;
  /** Called right before the first measured run and right after the last, e.g. to read a backend's counters. */
  aroundMeasured?: { before(): Promise<void>; after(): Promise<void> };
}

/**
 * Prints the scenario, checks a sample of answers, warms up with one run of the tool, then measures
 * `repeat` more; closes `load` after. CPU shares are read over the middle of each measured run, while the
 * tool still runs, and the server's memory at the end of that reading. Errors add the sample's, the
 * warm-up's and the measured runs'.
 */
export async function measureWithTool(
  scenario: string,
  load: ToolLoad,
  o: ToolMeasureOptions,
): Promise<Measurement> {
  process.stdout.write(`running: ${scenario}\n`);
  try {
    const sampleErrors = await load.checkSample();
    const warmup = await load.run(o.warmupMs).result;
    await o.aroundMeasured?.before();
    const runs: RunFigures[] = [];
    for (let i = 0; i < (o.repeat ?? 1); i++) runs.push(await measureRun(load, o));
    await o.aroundMeasured?.after();
    const dead = o.watched.find((c) => c.isExited());
    if (dead) throw new Error(`${dead.name} exited during "${scenario}":\n${dead.outputTail()}`);
    const combined = combineRuns(runs);
    const errorsByLabel = addCounts([sampleErrors, warmup.errorsByLabel, combined.errorsByLabel]);
    const errors = [...errorsByLabel.values()].reduce((a, b) => a + b, 0);
    return { ...combined, scenario, errors, errorsByLabel };
  } finally {
    await load.close();
  }
}

async function measureRun(load: ToolLoad, o: ToolMeasureOptions): Promise<RunFigures> {
  const run = load.run(o.durationMs);
  run.result.catch(() => undefined); // awaited below, once the CPU is read
  const marginMs = o.durationMs * CPU_MARGIN_SHARE;
  await sleep(marginMs);
  const meter = startCpuMeter(o.servers, [run.pid]);
  await sleep(o.durationMs - 2 * marginMs);
  const cpu = meter.stop();
  const serverRssBytes = readProcessesRssBytes(o.servers);
  const result = await run.result;
  return { ...result, cpu, serverRssBytes };
}
