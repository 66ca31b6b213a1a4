import { commandCount, type CounterOp, type CounterStore } from './types.js';

export interface PipelineWindowOptions {
  /** How long the first waiting request holds the flush for others to join; > 0. */
  windowMs: number;
  /** Flush once this many commands wait (2 per increment, 1 per read or take, as `commandCount`); 0 = no limit. */
  limit: number;
}

interface Waiting {
  ops: readonly CounterOp[];
  resolve: (values: number[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Implicit pipelining (`KVSTORE_PIPELINE_WINDOW`, `KVSTORE_PIPELINE_LIMIT`): ops of concurrent
 * requests wait up to `windowMs` and leave together in one `store.run`, one round trip for many
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
    store.run(batch.flatMap((w) => w.ops)).then(
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
    run(ops: readonly CounterOp[]) {
      return new Promise<number[]>((resolve, reject) => {
        waiting.push({ ops, resolve, reject });
        for (const op of ops) commands += commandCount(op);
        if (o.limit > 0 && commands >= o.limit) flush();
        else timer ??= setTimeout(flush, o.windowMs);
      });
    },
    supportsTokenBuckets: store.supportsTokenBuckets,
    ready: () => store.ready(),
    async close() {
      if (waiting.length > 0) flush();
      await store.close();
    },
  };
}
