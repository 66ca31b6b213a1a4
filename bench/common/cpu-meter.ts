import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** Linux's USER_HZ, the unit of `/proc/*\/stat` times, on every common architecture. */
const TICK_MS = 10;

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

/** User + system time of the live processes `ids` and of those in the process groups they lead. */
function readProcessesCpuMs(ids: readonly number[]): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command name, which may hold spaces: state ppid pgrp … utime(12th) stime(13th).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (ids.includes(Number(pid)) || ids.includes(Number(fields[2])))
      ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MS;
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
