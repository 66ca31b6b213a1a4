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
