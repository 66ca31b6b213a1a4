import { spawnNode, type Child, type NodeChildOptions } from './child-process.js';
import type { OnCleanup } from './run-bench.js';

/**
 * Starts a script that writes one JSON line naming the ports it bound once it is ready (`{"port":…}`), and
 * reads the ports `names` from that line. The child is stopped by `onCleanup`, registered as soon as it is
 * spawned. Throws when the child exits first or a port is missing.
 */
export async function spawnPortsChild<K extends string>(
  o: NodeChildOptions,
  names: readonly K[],
  onCleanup: OnCleanup,
): Promise<{ child: Child; ports: Record<K, number> }> {
  const child = spawnNode(o);
  onCleanup(() => child.stop());
  const line = await child.firstLine;
  const ready = JSON.parse(line) as Partial<Record<K, unknown>>;
  const ports = {} as Record<K, number>;
  for (const name of names) {
    const port = ready[name];
    if (typeof port !== 'number') throw new Error(`${o.name}: no "${name}" port in its first line ${line}`);
    ports[name] = port;
  }
  return { child, ports };
}
