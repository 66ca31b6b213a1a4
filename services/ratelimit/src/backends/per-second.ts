import type { CounterIncrement, CounterStore } from './types.js';

/**
 * `KVSTORE_PERSECOND=true`: increments of per-second limits go to `perSecond`, all others to `main`; both
 * round trips run at once and the values come back in the order asked.
 */
export function splitPerSecond(main: CounterStore, perSecond: CounterStore): CounterStore {
  return {
    async increment(ops: readonly CounterIncrement[]) {
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
    async ready() {
      await Promise.all([main.ready(), perSecond.ready()]);
    },
    async close() {
      await Promise.all([main.close(), perSecond.close()]);
    },
  };
}

function send(store: CounterStore, ops: readonly CounterIncrement[]): Promise<number[]> {
  return ops.length === 0 ? Promise.resolve([]) : store.increment(ops);
}
