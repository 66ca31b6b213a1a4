import { Resolver } from 'node:dns/promises';
import type { Logger } from '@portcullis/kit';

export interface NodeSourceOptions {
  /** `host:port` items; used as they are when non-empty. */
  hostPorts: readonly string[];
  /** An SRV record to resolve instead. */
  srv: string;
  /** Resolve `srv` again this often; 0 = never. */
  refreshMs: number;
  log: Logger;
  /** Injected in tests; the system resolver otherwise. */
  resolveSrv?: (name: string) => Promise<Array<{ name: string; port: number }>>;
}

/** The memcached nodes, as `host:port` sorted so that every replica hashes keys to the same node. */
export interface NodeSource {
  current(): Promise<string[]>;
  /** Calls `onChange` with the new list whenever a refresh finds one other than the last (first `initial`). */
  watch(initial: readonly string[], onChange: (nodes: string[]) => void): void;
  close(): void;
}

export function createNodeSource(o: NodeSourceOptions): NodeSource {
  const fixed = [...o.hostPorts].sort();
  const resolveSrv = o.resolveSrv ?? ((name: string) => new Resolver().resolveSrv(name));
  const resolve = async (): Promise<string[]> => {
    if (o.srv === '') return fixed;
    const records = await resolveSrv(o.srv);
    if (records.length === 0) throw new Error(`SRV record ${o.srv} lists no memcached node`);
    return records.map((r) => `${r.name}:${r.port}`).sort();
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    current: resolve,
    watch(initial, onChange) {
      if (o.srv === '' || o.refreshMs === 0) return;
      let last = initial.join(',');
      timer = setInterval(() => {
        resolve().then(
          (nodes) => {
            const key = nodes.join(',');
            if (key !== last) onChange(nodes);
            last = key;
          },
          (err: unknown) => o.log.warn({ err, srv: o.srv }, 'memcached SRV refresh failed'),
        );
      }, o.refreshMs);
      timer.unref();
    },
    close: () => clearInterval(timer),
  };
}
