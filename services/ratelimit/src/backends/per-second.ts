import type { CounterOp, CounterStore } from './types.js';

/**
 * `KVSTORE_PERSECOND=true`: ops of per-second limits go to `perSecond`, all others to `main`; both
 * round trips run at once and the values come back in the order asked.
 */
export function splitPerSecond(main: CounterStore, perSecond: CounterStore): CounterStore {
  return {
    async run(ops: readonly CounterOp[]) {
      const isPerSecond = ops.map((op) => op.unitSeconds === 1);
      const [mainValues, perSecondValues] = await Promise.all([
        send(
          main,
          ops.filter((_, i) => !isPerSecond[i]),
        ),
        send(
          perSecond,
          ops.filter((_, i) => isPerSecond[i]),
        ),
      ]);
      let m = 0;
      let s = 0;
      return isPerSecond.map((yes) => (yes ? perSecondValues[s++] : mainValues[m++]) ?? 0);
    },
    supportsTokenBuckets: main.supportsTokenBuckets && perSecond.supportsTokenBuckets,
    async ready() {
      await Promise.all([main.ready(), perSecond.ready()]);
    },
    async close() {
      await Promise.all([main.close(), perSecond.close()]);
    },
  };
}

function send(store: CounterStore, ops: readonly CounterOp[]): Promise<number[]> {
  return ops.length === 0 ? Promise.resolve([]) : store.run(ops);
}
