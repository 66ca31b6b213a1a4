import { Agent } from 'undici';

export interface UpstreamAgentOptions {
  /** `GATEWAY_UPSTREAM_MAX_CONNECTIONS`: open connections per upstream Service (host and port), per process. */
  maxConnections: number;
}

/**
 * The one connection pool of the upstream routes: per Service (host and port) keep-alive connections, at
 * most `maxConnections` of them; a request beyond that waits for one to be free. The route's own timeout
 * bounds the wait for the answer's headers (upstream.ts), and a response body may stream for as long as it
 * takes (server-sent events), so undici's own header and body timeouts are off.
 */
export function createUpstreamAgent(o: UpstreamAgentOptions): Agent {
  return new Agent({ connections: o.maxConnections, headersTimeout: 0, bodyTimeout: 0 });
}
