import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from './log.js';

/** What the HTTP parser refuses before a route runs, by its error code; anything else is 400 `BAD_REQUEST`. */
const REFUSALS: Readonly<Record<string, { statusCode: number; error: string; code: string }>> = {
  HPE_INVALID_METHOD: { statusCode: 405, error: 'unknown HTTP method', code: 'METHOD_NOT_ALLOWED' },
  HPE_HEADER_OVERFLOW: { statusCode: 431, error: 'request headers too large', code: 'HEADERS_TOO_LARGE' },
  ERR_HTTP_REQUEST_TIMEOUT: {
    statusCode: 408,
    error: 'request not received in time',
    code: 'REQUEST_TIMEOUT',
  },
};
const MALFORMED = { statusCode: 400, error: 'malformed HTTP request', code: 'BAD_REQUEST' };

/**
 * fastify's `clientErrorHandler`: answers a request the HTTP parser refused with the `{error, code}` body every
 * answer has, then closes the connection (the parser cannot find where the next request starts). A reset
 * connection has no one to answer. Logged at debug: a client's mistake or slowness, never a server failure.
 * The answer to a HEAD carries the length and no body, as HTTP has it: a client reads no body after a HEAD
 * and would take the JSON for a broken next answer.
 */
export function answerClientError(
  err: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
  log: Logger,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { statusCode, ...body } = (err.code === undefined ? undefined : REFUSALS[err.code]) ?? MALFORMED;
  log.debug({ code: body.code, statusCode, remoteAddress: socket.remoteAddress }, 'request refused');
  const json = JSON.stringify(body);
  const isHead =
    Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${isHead ? '' : json}`,
    );
  }
  socket.destroy();
}
