/**
 * One Server-Sent Event. `data` must be one line (JSON.stringify output always is); an event without `id`
 * leaves the client's last event id as it was.
 */
export function formatSseEvent(e: { id?: string; event: string; data: unknown }): string {
  return `${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A comment line: ignored by clients, it keeps proxies from timing the connection out. */
export const SSE_HEARTBEAT = ': ping\n\n';

/** How long a client waits before reconnecting, in ms. */
export function formatSseRetry(ms: number): string {
  return `retry: ${ms}\n\n`;
}

/**
 * Formats `value` once for all the callers that pass the same object (and so must pass the same `args`
 * with it): every listener of a feed is handed the same capture or forwarding event, and with hundreds of
 * subscribers on one endpoint formatting it for each was a large share of the fan-out's CPU.
 */
export function formatOnce<T extends object, A extends unknown[]>(
  format: (value: T, ...args: A) => string,
): (value: T, ...args: A) => string {
  const formatted = new WeakMap<T, string>();
  return (value, ...args) => {
    let text = formatted.get(value);
    if (text === undefined) {
      text = format(value, ...args);
      formatted.set(value, text);
    }
    return text;
  };
}
