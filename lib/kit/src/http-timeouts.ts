import type { EnvReader } from './env.js';

/** How long an HTTP server waits for a client, in milliseconds. Every limit closes the connection. */
export interface HttpTimeouts {
  /** The whole request, headers and body, from its first byte: 408, logged at debug. */
  requestMs: number;
  /** The request line and headers: 408, logged at debug. */
  headersMs: number;
  /**
   * No byte moving either way: between requests on a keep-alive connection, or while a client does not
   * read its answer. The connection is closed without an answer.
   */
  idleMs: number;
}

/**
 * Headers arrive in one packet from any real client, so 10 s only spares very slow links. A 1 MiB body
 * (the default size limit) arrives in 30 s at 35 KB/s. 72 s idle outlasts the 60 s idle timeout of common
 * load balancers, so the balancer closes first and never sends on a connection this side is closing.
 */
export const DEFAULT_HTTP_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  requestMs: 30_000,
  headersMs: 10_000,
  idleMs: 72_000,
});

/**
 * Reads the three timeouts from variables the caller names whole (`GATEWAY_REQUEST_TIMEOUT`, …); each is
 * a duration from 10ms to 1h, and the headers must be allowed no longer than the whole request.
 */
export function readHttpTimeouts(
  env: EnvReader,
  names: { requestMs: string; headersMs: string; idleMs: string },
  defaults: Readonly<HttpTimeouts> = DEFAULT_HTTP_TIMEOUTS,
): HttpTimeouts {
  const read = (key: keyof HttpTimeouts): number =>
    env.durationMs(names[key], { default: `${defaults[key]}ms`, min: '10ms', max: '1h' });
  const timeouts = { requestMs: read('requestMs'), headersMs: read('headersMs'), idleMs: read('idleMs') };
  if (timeouts.headersMs > timeouts.requestMs) {
    env.problem(`${names.headersMs}: at most ${names.requestMs}, which includes the headers`);
  }
  return timeouts;
}
