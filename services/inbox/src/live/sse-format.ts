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
