import type { IncomingMessage } from 'node:http';

const NO_BODY = Buffer.alloc(0);

/**
 * A request body up to `maxBytes`, read as fastify's content-type parsers read one, so that a route reading
 * its own body answers as a fastify route does: a declared `Content-Length` above the limit is refused
 * unread, a chunked body as soon as it passes the limit (the rest flows on unkept until the answer closes
 * the connection, which `tooLarge`'s error must ask for), and a stream that fails (the client went away
 * mid-body) rejects with its error as a 400. A request with neither `Content-Length` nor `Transfer-Encoding`
 * has no body (RFC 9112 §6.3), answered without touching the stream; over HTTP/2 the stream carries the body
 * whether or not `Content-Length` announces it (RFC 9113 §8.1). The bytes are as sent, never decoded.
 */
export function readBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  if (
    req.httpVersionMajor !== 2 &&
    req.headers['content-length'] === undefined &&
    req.headers['transfer-encoding'] === undefined
  ) {
    return Promise.resolve(NO_BODY);
  }
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(tooLarge());
  // gone before it was read (a route that reads late): no 'end' or 'error' is left to come
  if (req.destroyed) return Promise.reject(asBadRequest(req.errored ?? new Error('aborted')));
  if (!req.complete) return readFlowing(req, maxBytes, tooLarge);
  // all of it arrived before it was read: taken at once, without the stream's flowing mode
  if (req.readableLength > maxBytes) return Promise.reject(tooLarge());
  return Promise.resolve((req.read() as Buffer | null) ?? NO_BODY);
}

// Listeners stay on the request, which is dropped after its answer: removing them, or naming them, would
// cost more on the hot path (`POST /json`) than the calls they ignore once the promise is settled.
function readFlowing(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      // refused already: the rest flows on, unkept
      if (size > maxBytes) return;
      size += chunk.length;
      if (size > maxBytes) reject(tooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    req.on('error', (err) => reject(asBadRequest(err)));
  });
}

/** fastify's status for a body stream that failed: 400 unless the error carries a 4xx of its own. */
function asBadRequest(err: Error & { statusCode?: number }): Error {
  if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
  return err;
}
