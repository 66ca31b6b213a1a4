import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { Readable, Transform } from 'node:stream';
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
  /** The whole body when its length was known and small (`BUFFERED_BODY_BYTES`), else a stream of it. */
  body: Buffer | Readable;
}

/**
 * A body of known length up to this is read whole before the answer starts, then sent in one write with its
 * headers, as nginx's proxy buffering does: cheaper than a stream per answer. Longer, unknown-length
 * (chunked, server-sent events) or HEAD answers stream as they arrive.
 */
export const BUFFERED_BODY_BYTES = 64 * 1024;

/**
 * Forwards a request to a backend with its method, headers (minus hop-by-hop ones and the gateway's
 * credentials) and body streamed as it arrives (backpressure reaching the client), adding
 * `X-Forwarded-For/-Proto/-Host` and the caller's identity. Resolves with the response headers and its
 * body: whole when it is at most `BUFFERED_BODY_BYTES` long, else streaming after. Rejects with 504 when the
 * answer (a buffered body included) does not come within the timeout, 502 when the backend cannot be
 * reached or drops the connection, and 413 when the body is longer than `maxBodyBytes`: at once when its
 * `Content-Length` says so, else when the count passes it, the backend's request then aborted. A request
 * without a body whose method is idempotent is sent once more when its connection failed.
 */
export function forwardRequest(o: UpstreamRequest): Promise<UpstreamResponse> {
  if (Number(o.req.headers['content-length']) > o.maxBodyBytes)
    return Promise.reject(tooLarge(o.maxBodyBytes));
  return new Promise((resolve, reject) => new UpstreamExchange(o, resolve, reject).start());
}

/**
 * One request on undici's dispatch API: no abort signal, no response stream object unless the body
 * streams. Settles its promise once: with the answer, or with the first failure (the timeout, a 413
 * while the body is read, or the connection's error after its one retry), which then aborts the request
 * even if it is still queued for a connection.
 */
class UpstreamExchange implements Dispatcher.DispatchHandler {
  private readonly agent: Dispatcher;
  private readonly timer: NodeJS.Timeout;
  private readonly options: Dispatcher.DispatchOptions;
  private retries: number;
  private controller: Dispatcher.DispatchController | undefined;
  private failure: Error | undefined;
  private settled = false;
  private answer: { statusCode: number; headers: OutgoingHttpHeaders } | undefined;
  /** The buffered body's chunks; undefined while the headers are awaited and once the body streams. */
  private chunks: Buffer[] | undefined;
  private stream: Readable | undefined;

  constructor(
    o: UpstreamRequest,
    private readonly resolve: (res: UpstreamResponse) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.timer = setTimeout(() => this.fail(new UpstreamTimeoutError()), o.timeoutMs);
    const body = hasBody(o.req) ? countedBody(o.req, o.maxBodyBytes, (err) => this.fail(err)) : null;
    this.retries = body === null && IDEMPOTENT.has(o.req.method ?? '') ? 1 : 0;
    this.options = {
      origin: `http://${o.host}:${o.port}`,
      method: o.req.method ?? 'GET',
      path: o.path,
      headers: forwardHeaders(o.req.headers, o) as Record<string, string | string[]>,
      body,
    };
    this.agent = o.agent;
  }

  start(): void {
    this.agent.dispatch(this.options, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // failed while it waited for a connection: it must not go out now
    if (this.failure) controller.abort(this.failure);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200 || this.settled) return;
    this.answer = { statusCode, headers: responseHeaders(headers) };
    const length = headers['content-length'];
    if (this.options.method === 'HEAD' || (length !== undefined && Number(length) <= BUFFERED_BODY_BYTES)) {
      this.chunks = [];
      return;
    }
    clearTimeout(this.timer);
    this.settled = true;
    const stream = new Readable({
      read: () => controller.resume(),
      destroy: (err, done) => {
        // the client went away mid-body: the backend's request goes too
        if (!controller.aborted && !stream.readableEnded)
          controller.abort(err ?? new Error('client went away'));
        done(err);
      },
    });
    this.stream = stream;
    this.resolve({ ...this.answer, body: stream });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.chunks) this.chunks.push(chunk);
    else if (this.stream && !this.stream.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (this.stream) {
      this.stream.push(null);
      return;
    }
    if (!this.answer || !this.chunks || this.settled) return;
    clearTimeout(this.timer);
    this.settled = true;
    const body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.resolve({ ...this.answer, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.stream) {
      this.stream.destroy(err);
      return;
    }
    if (this.settled) return;
    if (this.retries > 0 && this.answer === undefined && RETRIED_CODES.has(errorCode(err))) {
      this.retries -= 1;
      this.start();
      return;
    }
    clearTimeout(this.timer);
    this.settled = true;
    this.reject(new UpstreamUnavailableError({ cause: err }));
  }

  /** Answers `err` (unless answered already) and stops the backend's request, sent or still queued. */
  private fail(err: Error): void {
    clearTimeout(this.timer);
    this.failure = err;
    if (!this.settled) {
      this.settled = true;
      this.reject(err);
    }
    if (this.controller && !this.controller.aborted) this.controller.abort(err);
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
  const dropped = namedByConnection(incoming.connection);
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped?.has(name) || isIdentityHeader(name)) continue;
    // HTTP/2's pseudo-headers (`:method`, `:path`, …) describe the request line, which HTTP/1.1 sends itself
    if (name.startsWith(':') || o.credentials.headers.includes(name)) continue;
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
  const dropped = namedByConnection(incoming.connection);
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped?.has(name)) out[name] = value;
  }
  return out;
}

/**
 * The headers `Connection` names as hop-by-hop (RFC 9110 §7.6.1), lower-cased. Typed as one string, it is an
 * array when the backend sent it twice.
 */
function namedByConnection(connection: string | string[] | undefined): ReadonlySet<string> | undefined {
  if (connection === undefined) return undefined;
  return new Set(
    [connection]
      .flat()
      .join(',')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
}
