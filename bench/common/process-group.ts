import { readFileSync, readdirSync } from 'node:fs';

/** Linux's USER_HZ, the unit of `/proc/stat` and `/proc/*\/stat` times, on every common architecture. */
export const TICK_MS = 10;

/**
 * The live processes `ids` and those in the process groups they lead (a service's worker processes, forked
 * into its group), each with its `/proc/<pid>/stat` fields after the command name (state is [0]); undefined
 * where `/proc` is absent.
 */
function listGroupProcesses(ids: readonly number[]): Array<{ pid: number; fields: string[] }> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  const found: Array<{ pid: number; fields: string[] }> = [];
  for (const entry of entries) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // The command name may hold spaces: the fields start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (ids.includes(pid) || ids.includes(Number(fields[2]))) found.push({ pid, fields });
  }
  return found;
}

/** User + system time so far of the processes `ids` and of those in the process groups they lead. */
export function readProcessesCpuMs(ids: readonly number[]): number | undefined {
  const processes = listGroupProcesses(ids);
  // utime and stime are the 14th and 15th fields of the whole line
  return processes?.reduce((ms, p) => ms + (Number(p.fields[11]) + Number(p.fields[12])) * TICK_MS, 0);
}

/**
 * Resident memory now of the processes `ids` and of those in the process groups they lead, summed
 * (`VmRSS`; pages shared between them, such as a forked worker's, count once per process).
 */
export function readProcessesRssBytes(ids: readonly number[]): number | undefined {
  const processes = listGroupProcesses(ids);
  if (!processes) return undefined;
  let kib = 0;
  for (const { pid } of processes) {
    try {
      kib += Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return kib * 1024;
}
