/**
 * Collects items through one event-loop turn and hands them to `flush` together when it ends
 * (`setImmediate`): what one turn decided leaves in one write, and nothing waits longer than the turn.
 */
export function batchPerTurn<T>(flush: (batch: T[]) => void): (item: T) => void {
  let pending: T[] = [];
  const run = (): void => {
    const batch = pending;
    pending = [];
    flush(batch);
  };
  return (item) => {
    if (pending.push(item) === 1) setImmediate(run);
  };
}

/**
 * `batchPerTurn` for calls whose callers wait for the answer: the items of one turn go to `send` grouped by
 * key, one call per key, and each item's promise settles as its group's call does.
 */
export function batchPerTurnByKey<T>(
  send: (key: string, items: T[]) => Promise<unknown>,
): (key: string, item: T) => Promise<void> {
  interface Waiting {
    key: string;
    item: T;
    resolve: () => void;
    reject: (err: Error) => void;
  }
  const sendGroup = async (key: string, waiting: Waiting[]): Promise<void> => {
    try {
      await send(
        key,
        waiting.map((w) => w.item),
      );
      for (const w of waiting) w.resolve();
    } catch (err: unknown) {
      for (const w of waiting) w.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  const queue = batchPerTurn<Waiting>((batch) => {
    const groups = new Map<string, Waiting[]>();
    for (const w of batch) {
      const group = groups.get(w.key);
      if (group) group.push(w);
      else groups.set(w.key, [w]);
    }
    for (const [key, waiting] of groups) void sendGroup(key, waiting);
  });
  return (key, item) => new Promise((resolve, reject) => queue({ key, item, resolve, reject }));
}
