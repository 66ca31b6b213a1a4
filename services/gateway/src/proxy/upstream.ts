import {
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Transform } from 'node:stream';
import { HOP_BY_HOP_HEADERS } from '@portcullis/kit';
import { UpstreamTimeoutError, UpstreamUnavailableError } from '../errors.js';
import { tooLarge } from '../request-data.js';
import { encodeIdentityValue, isIdentityHeader } from './identity-headers.js';

/** Never forwarded: the connection's own headers, and `Host`, which names the backend. */
const HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'host']);

export interface UpstreamRequest {
  req: IncomingMessage;
  host: string;
  port: number;
  /** Path and query to ask for, starting with `/`. */
  path: string;
  timeoutMs: number;
  client: { ip: string; protocol: string; host: string };
  identity: { id: string; username: string } | undefined;
  /** The gateway's own credentials, kept from the backend: request headers and cookies, by name. */
  credentials: { headers: readonly string[]; cookies: readonly string[] };
  /** `GATEWAY_MAX_BODY_BYTES`: a longer body is refused (413) before or while it streams. */
  maxBodyBytes: number;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: IncomingMessage;
}

/**
 * Forwards a request to a backend with its method, headers (minus hop-by-hop ones and the gateway's
 * credentials) and body streamed as it arrives, adding `X-Forwarded-For/-Proto/-Host` and the caller's
 * identity. Resolves with the response headers (the body streams after); rejects with 504 when no answer
 * comes within the timeout, 502 when the backend cannot be reached, and 413 when the body is longer than
 * `maxBodyBytes`: at once when its `Content-Length` says so, else when the count passes it, the backend's
 * request then aborted.
 */
export function forwardRequest(o: UpstreamRequest): Promise<UpstreamResponse> {
  if (Number(o.req.headers['content-length']) > o.maxBodyBytes)
    return Promise.reject(tooLarge(o.maxBodyBytes));
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
    // `on`, not `once`: a request destroyed for a timeout or an overlong body may report more than one error
    upstream.on('error', (err) => {
      clearTimeout(timer);
      reject(new UpstreamUnavailableError({ cause: err }));
    });
    const counted = countBytes(o.maxBodyBytes);
    counted.once('error', (err) => {
      clearTimeout(timer);
      o.req.unpipe(counted);
      // first, so this is the answer unless the backend's came already (then its body is cut off)
      reject(err);
      upstream.destroy();
    });
    o.req.pipe(counted).pipe(upstream);
  });
}

/** Passes the body through, counting; one byte past `maxBytes` fails it with 413 instead. */
function countBytes(maxBytes: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(tooLarge(maxBytes));
      else done(null, chunk);
    },
  });
}

function forwardHeaders(incoming: IncomingHttpHeaders, o: UpstreamRequest): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const dropped = new Set((incoming.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
  const credentials = new Set(o.credentials.headers);
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name) || isIdentityHeader(name)) continue;
    // HTTP/2's pseudo-headers (`:method`, `:path`, …) describe the request line, which HTTP/1.1 sends itself
    if (name.startsWith(':') || credentials.has(name)) continue;
    out[name] = value;
  }
  const cookie = withoutCookies(incoming.cookie, o.credentials.cookies);
  if (cookie === undefined) delete out.cookie;
  else out.cookie = cookie;
  const before = incoming['x-forwarded-for'];
  out['x-forwarded-for'] = before ? `${String(before)}, ${o.client.ip}` : o.client.ip;
  out['x-forwarded-proto'] = o.client.protocol;
  out['x-forwarded-host'] = o.client.host;
  out.host = `${o.host}:${o.port}`;
  if (o.identity) {
    out['x-user-id'] = encodeIdentityValue(o.identity.id);
    out['x-user-name'] = encodeIdentityValue(o.identity.username);
  }
  return out;
}

/** A `Cookie` header without the cookies named; undefined when none is left. */
function withoutCookies(header: string | undefined, names: readonly string[]): string | undefined {
  if (header === undefined) return undefined;
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !names.includes(pair.split('=', 1)[0]?.trim() ?? ''));
  return kept.length === 0 ? undefined : kept.join('; ');
}

function responseHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const dropped = new Set((incoming.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped.has(name)) out[name] = value;
  }
  return out;
}
