import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { Transform, type Readable } from 'node:stream';
import { HOP_BY_HOP_HEADERS } from '@portcullis/kit';
import type { Dispatcher } from 'undici';
import { UpstreamTimeoutError, UpstreamUnavailableError } from '../errors.js';
import { tooLarge } from '../request-data.js';
import { encodeIdentityValue, isIdentityHeader } from './identity-headers.js';

/**
 * Never forwarded: the connection's own headers; `Host`, which names the backend; and `Expect`, which the
 * gateway's server answered (`100 Continue`) before the body came.
 */
const HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'host', 'expect']);
/** Asked again once when the connection failed: RFC 9110's idempotent methods (sent without a body). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
/**
 * Failures of a connection rather than of the backend's answer: typically a kept-alive connection the
 * backend closed just as the request went out.
 */
const RETRIED_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

export interface UpstreamRequest {
  req: IncomingMessage | Http2ServerRequest;
  /** The pool the request is sent through (upstream-agent.ts). */
  agent: Dispatcher;
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
  body: Readable;
}

/**
 * Forwards a request to a backend with its method, headers (minus hop-by-hop ones and the gateway's
 * credentials) and body streamed as it arrives (backpressure reaching the client), adding
 * `X-Forwarded-For/-Proto/-Host` and the caller's identity. Resolves with the response headers (the body
 * streams after); rejects with 504 when no answer comes within the timeout, 502 when the backend cannot be
 * reached or drops the connection, and 413 when the body is longer than `maxBodyBytes`: at once when its
 * `Content-Length` says so, else when the count passes it, the backend's request then aborted. A request
 * without a body whose method is idempotent is sent once more when its connection failed.
 */
export function forwardRequest(o: UpstreamRequest): Promise<UpstreamResponse> {
  if (Number(o.req.headers['content-length']) > o.maxBodyBytes)
    return Promise.reject(tooLarge(o.maxBodyBytes));
  const headers = forwardHeaders(o.req.headers, o);
  const abort = new AbortController();
  return new Promise((resolve, reject) => {
    // each rejects first, so it is the answer; the abort then stops the backend's request (and cuts off its
    // body if its headers came already)
    const fail = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
      abort.abort();
    };
    const timer = setTimeout(() => fail(new UpstreamTimeoutError()), o.timeoutMs);
    const body = hasBody(o.req) ? countedBody(o.req, o.maxBodyBytes, fail) : null;
    const retries = body === null && IDEMPOTENT.has(o.req.method ?? '') ? 1 : 0;
    send(o, { headers, body, signal: abort.signal }, retries).then(
      (res) => {
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode, headers: responseHeaders(res.headers), body: res.body });
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(new UpstreamUnavailableError({ cause: err }));
      },
    );
  });
}

interface SendOptions {
  headers: OutgoingHttpHeaders;
  body: Readable | null;
  signal: AbortSignal;
}

async function send(o: UpstreamRequest, s: SendOptions, retries: number): Promise<Dispatcher.ResponseData> {
  try {
    return await o.agent.request({
      origin: `http://${o.host}:${o.port}`,
      method: o.req.method ?? 'GET',
      path: o.path,
      headers: s.headers as Record<string, string | string[]>,
      body: s.body,
      signal: s.signal,
    });
  } catch (err: unknown) {
    if (retries > 0 && !s.signal.aborted && RETRIED_CODES.has(errorCode(err))) return send(o, s, retries - 1);
    throw err;
  }
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** Whether the request has a body to stream: HTTP/2 says so by the stream, HTTP/1.1 by its framing headers. */
function hasBody(req: IncomingMessage | Http2ServerRequest): boolean {
  if ('stream' in req) return !req.stream.endAfterHeaders;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * The request's body as it arrives, counted: one byte past `maxBytes` calls `fail` with 413 (the request
 * unpiped, not destroyed, so the 413 can still be answered). A client that goes away ends it short.
 */
function countedBody(
  req: IncomingMessage | Http2ServerRequest,
  maxBytes: number,
  fail: (err: Error) => void,
): Readable {
  const counted = countBytes(maxBytes);
  counted.once('error', (err) => {
    req.unpipe(counted);
    fail(err);
  });
  req.once('error', () => counted.destroy());
  return req.pipe(counted);
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

function responseHeaders(incoming: Dispatcher.ResponseData['headers']): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const dropped = new Set(
    String(incoming.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped.has(name)) out[name] = value;
  }
  return out;
}
