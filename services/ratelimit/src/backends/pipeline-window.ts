import type { CounterIncrement, CounterStore } from './types.js';

export interface PipelineWindowOptions {
  /** How long the first waiting request holds the flush for others to join; > 0. */
  windowMs: number;
  /** Flush as soon as this many commands wait (two per increment: INCRBY and EXPIRE); 0 = no limit. */
  limit: number;
}

interface Waiting {
  ops: readonly CounterIncrement[];
  resolve: (values: number[]) => void;
  reject: (err: unknown) => void;
}

const COMMANDS_PER_INCREMENT = 2;

/**
 * Implicit pipelining (`KVSTORE_PIPELINE_WINDOW`, `KVSTORE_PIPELINE_LIMIT`): increments of concurrent
 * requests wait up to `windowMs` and leave together in one `store.increment`, one round trip for many
 * decisions. A failed flush fails every request in it. Node timers have a 1 ms resolution, so shorter
 * windows act as 1 ms.
 */
export function withPipelineWindow(store: CounterStore, o: PipelineWindowOptions): CounterStore {
  let waiting: Waiting[] = [];
  let commands = 0;
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    commands = 0;
    store.increment(batch.flatMap((w) => w.ops)).then(
      (values) => {
        let at = 0;
        for (const w of batch) {
          w.resolve(values.slice(at, at + w.ops.length));
          at += w.ops.length;
        }
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  };

  return {
    increment(ops: readonly CounterIncrement[]) {
      return new Promise<number[]>((resolve, reject) => {
        waiting.push({ ops, resolve, reject });
        commands += ops.length * COMMANDS_PER_INCREMENT;
        if (o.limit > 0 && commands >= o.limit) flush();
        else timer ??= setTimeout(flush, o.windowMs);
      });
    },
    ready: () => store.ready(),
    async close() {
      if (waiting.length > 0) flush();
      await store.close();
    },
  };
}
