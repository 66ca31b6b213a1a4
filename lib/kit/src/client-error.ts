import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/** What the HTTP parser refuses before a route runs, as the `{error, code}` body every answer has. */
function describeClientError(code: string | undefined): { statusCode: number; error: string; code: string } {
  switch (code) {
    case 'HPE_INVALID_METHOD':
      return { statusCode: 405, error: 'unknown HTTP method', code: 'METHOD_NOT_ALLOWED' };
    case 'HPE_HEADER_OVERFLOW':
      return { statusCode: 431, error: 'request headers too large', code: 'HEADERS_TOO_LARGE' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { statusCode: 408, error: 'request not received in time', code: 'REQUEST_TIMEOUT' };
    default:
      return { statusCode: 400, error: 'malformed HTTP request', code: 'BAD_REQUEST' };
  }
}

/**
 * fastify's `clientErrorHandler`: answers a request the HTTP parser refused, then closes the connection
 * (the parser cannot find where the next request starts). A reset connection has no one to answer.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { statusCode, ...body } = describeClientError(err.code);
  const json = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}
