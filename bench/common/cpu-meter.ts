import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TICK_MS, readProcessesCpuMs } from './process-group.js';

export interface CpuShares {
  /** CPU time over wall time, in cores (1 = one core busy); undefined where `/proc` is absent. */
  client: number | undefined;
  /** The server's processes together. */
  server: number | undefined;
  machine: number | undefined;
}

/**
 * Starts measuring the server (`servers`: process ids, each with the process group it leads, if any), the
 * load generator (`clients`, likewise; this process when absent) and the whole machine. An external load
 * generator must still run when `stop` is called: the CPU of an exited process is no longer in `/proc`.
 */
export function startCpuMeter(
  servers: readonly number[],
  clients?: readonly number[],
): { stop(): CpuShares } {
  const wallAtStart = performance.now();
  const ownAtStart = process.cpuUsage();
  const clientAtStart = clients && readProcessesCpuMs(clients);
  const serverAtStart = readProcessesCpuMs(servers);
  const machineAtStart = readMachineBusyMs();
  return {
    stop: () => {
      const wallMs = performance.now() - wallAtStart;
      const own = process.cpuUsage(ownAtStart);
      const share = (from: number | undefined, to: number | undefined): number | undefined =>
        from === undefined || to === undefined ? undefined : (to - from) / wallMs;
      return {
        client: clients
          ? share(clientAtStart, readProcessesCpuMs(clients))
          : (own.user + own.system) / 1000 / wallMs,
        server: share(serverAtStart, readProcessesCpuMs(servers)),
        machine: share(machineAtStart, readMachineBusyMs()),
      };
    },
  };
}

/** Busy time of all cores: the `cpu` line of `/proc/stat` without idle and iowait. */
function readMachineBusyMs(): number | undefined {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
  const [, user, nice, system, , , irq, softirq, steal] = (line ?? '').split(/\s+/).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce<number>((a, b) => a + (b ?? 0), 0);
  return busy * TICK_MS;
}
