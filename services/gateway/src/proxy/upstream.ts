import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { HOP_BY_HOP_HEADERS } from '@portcullis/kit';
import { UpstreamTimeoutError, UpstreamUnavailableError } from '../errors.js';

/** Never forwarded: the connection's own headers, and `Host`, which names the backend. */
const HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'host']); /** Identity headers only the gateway may set. */
const IDENTITY = ['x-user-id', 'x-user-name'];

export interface UpstreamRequest {
  req: IncomingMessage;
  host: string;
  port: number;
  /** Path and query to ask for, starting with `/`. */
  path: string;
  timeoutMs: number;
  client: { ip: string; protocol: string; host: string };
  identity: { id: string; username: string } | undefined;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: IncomingMessage;
}

/**
 * Forwards a request to a backend with its method, headers (minus hop-by-hop ones) and body streamed as
 * it arrives, adding `X-Forwarded-For/-Proto/-Host` and the caller's identity. Resolves with the response
 * headers (the body streams after); rejects with 504 when no answer comes within the timeout and 502 when
 * the backend cannot be reached.
 */
export function forwardRequest(o: UpstreamRequest): Promise<UpstreamResponse> {
  const headers = forwardHeaders(o.req.headers, o);
  return new Promise((resolve, reject) => {
    const upstream = httpRequest({ host: o.host, port: o.port, method: o.req.method, path: o.path, headers });
    const timer = setTimeout(() => {
      upstream.destroy();
      reject(new UpstreamTimeoutError());
    }, o.timeoutMs);
    upstream.once('response', (res) => {
      clearTimeout(timer);
      resolve({ statusCode: res.statusCode ?? 502, headers: responseHeaders(res.headers), body: res });
    });
    upstream.once('error', (err) => {
      clearTimeout(timer);
      reject(new UpstreamUnavailableError({ cause: err }));
    });
    o.req.pipe(upstream);
  });
}

function forwardHeaders(incoming: IncomingHttpHeaders, o: UpstreamRequest): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const dropped = new Set((incoming.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name) || IDENTITY.includes(name)) continue;
    // HTTP/2's pseudo-headers (`:method`, `:path`, …) describe the request line, which HTTP/1.1 sends itself
    if (name.startsWith(':')) continue;
    out[name] = value;
  }
  const before = incoming['x-forwarded-for'];
  out['x-forwarded-for'] = before ? `${String(before)}, ${o.client.ip}` : o.client.ip;
  out['x-forwarded-proto'] = o.client.protocol;
  out['x-forwarded-host'] = o.client.host;
  out.host = `${o.host}:${o.port}`;
  if (o.identity) {
    out['x-user-id'] = o.identity.id;
    out['x-user-name'] = o.identity.username;
  }
  return out;
}

function responseHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const dropped = new Set((incoming.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped.has(name)) out[name] = value;
  }
  return out;
}
