import { spawnTsx, type Child } from '../common/child-process.js';

export interface CeilingProcess {
  child: Child;
  grpcPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

/** Starts `ceiling-server.ts` in its own process and reads the ports it bound. */
export async function startCeiling(): Promise<CeilingProcess> {
  const child = spawnTsx({ name: 'ceiling server', script: 'bench/ratelimit/ceiling-server.ts' });
  try {
    const ports = JSON.parse(await child.firstLine) as { grpcPort: number; httpPort: number };
    return { child, grpcPort: ports.grpcPort, httpPort: ports.httpPort, stop: () => child.stop() };
  } catch (err: unknown) {
    await child.stop();
    throw err;
  }
}
