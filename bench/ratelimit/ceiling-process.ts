import type { Child } from '../common/child-process.js';
import { spawnPortsChild } from '../common/ports-child.js';
import type { OnCleanup } from '../common/run-bench.js';

export interface CeilingProcess {
  child: Child;
  grpcPort: number;
  httpPort: number;
}

/** Starts `ceiling-server.ts` in its own process and reads the ports it bound; stopped by `onCleanup`. */
export async function startCeiling(onCleanup: OnCleanup): Promise<CeilingProcess> {
  const { child, ports } = await spawnPortsChild(
    { name: 'ceiling server', script: 'bench/ratelimit/ceiling-server.ts' },
    ['grpcPort', 'httpPort'],
    onCleanup,
  );
  return { child, ...ports };
}
