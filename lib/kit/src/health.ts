/**
 * Named health components; the whole is healthy only when every one is. A component that is not
 * registered does not count, which is how optional checks stay off.
 */
export interface Health {
  register(component: string, healthy: boolean): void;
  set(component: string, healthy: boolean): void;
  isHealthy(): boolean;
  /** Component name → state, for debug output. */
  snapshot(): Record<string, boolean>;
  /** Calls `listener` each time the whole flips; returns how to stop listening. */
  onChange(listener: (healthy: boolean) => void): () => void;
}

export function createHealth(): Health {
  const states = new Map<string, boolean>();
  const listeners = new Set<(healthy: boolean) => void>();
  const isHealthy = (): boolean => [...states.values()].every(Boolean);
  const set = (component: string, healthy: boolean): void => {
    const before = isHealthy();
    states.set(component, healthy);
    const after = isHealthy();
    if (before !== after) for (const l of [...listeners]) l(after);
  };
  return {
    register: set,
    set(component, healthy) {
      if (states.has(component)) set(component, healthy);
    },
    isHealthy,
    snapshot: () => Object.fromEntries(states),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
