import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatProfileSummary, nowUs, readCpuProfile, summarizeCpuProfile } from '../common/cpu-profile.js';
import { renderFlameGraph } from '../common/flame-graph.js';
import type { ToolLoad } from '../common/tool-load.js';
import type { GatewayProcess } from './processes.js';

const TOP_FRAMES = 15;

export interface ProfileRunOptions {
  /** Starts a gateway writing a CPU profile into the directory given, on exit. */
  start: (cpuProfDir: string) => Promise<GatewayProcess>;
  load: (port: number) => Promise<ToolLoad>;
  /** A fresh directory for the profile is made in it. */
  parentDir: string;
  /** The flame graph's title. */
  title: string;
  warmupMs: number;
  durationMs: number;
}

/**
 * Runs a profiled gateway under `load` (warm-up, then the measured window), stops it so that it writes the
 * profile, and describes where the window's CPU time went, also as a flame graph (`flame.svg` beside the
 * profile). Resolves with printable lines.
 */
export async function profileGateway(o: ProfileRunOptions): Promise<string[]> {
  const dir = await mkdtemp(join(o.parentDir, 'gateway-cpu-prof-'));
  const gateway = await o.start(dir);
  let served: number;
  let window: { fromUs: number; toUs: number };
  try {
    const load = await o.load(gateway.port);
    try {
      await load.run(o.warmupMs).result;
      const fromUs = nowUs();
      const result = await load.run(o.durationMs).result;
      window = { fromUs, toUs: nowUs() };
      served = result.summary.perSecond;
    } finally {
      await load.close();
    }
  } finally {
    await gateway.child.stop();
  }
  const { file, profile } = await readCpuProfile(dir);
  const flameGraph = join(dir, 'flame.svg');
  await writeFile(flameGraph, renderFlameGraph(profile, { window, title: o.title }));
  return [
    `profiled gateway: ${Math.round(served).toLocaleString('en-US')} requests/s under the profiler; ${file}`,
    `flame graph of the measured window: ${flameGraph}`,
    ...formatProfileSummary(summarizeCpuProfile(profile, { window, top: TOP_FRAMES })),
  ];
}
