import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  BadRequestError,
  HeadersTooLargeError,
  MethodNotAllowedError,
  RequestTimeoutError,
} from './errors.js';
import type { ErrorClass } from './error-class.js';
import type { Logger } from './log.js';

/** What the HTTP parser refuses before a route runs, by its error code; anything else is 400 `BAD_REQUEST`. */
const REFUSALS: Readonly<Record<string, { type: ErrorClass; error: string }>> = {
  HPE_INVALID_METHOD: { type: MethodNotAllowedError, error: 'unknown HTTP method' },
  HPE_HEADER_OVERFLOW: { type: HeadersTooLargeError, error: 'request headers too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { type: RequestTimeoutError, error: 'request not received in time' },
};
const MALFORMED = { type: BadRequestError, error: 'malformed HTTP request' };

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
  const { type, error } = (err.code === undefined ? undefined : REFUSALS[err.code]) ?? MALFORMED;
  const { code, status: statusCode } = type;
  log.debug(
    { code, statusCode, remoteAddress: socket.remoteAddress, remotePort: socket.remotePort },
    'request refused',
  );
  const json = JSON.stringify({ error, code });
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
