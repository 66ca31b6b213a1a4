import type { IncomingMessage } from 'node:http';

/**
 * Reads a request body up to `maxBytes`: a declared `Content-Length` above the limit is refused before
 * reading, a chunked body as soon as it passes the limit, and nothing is kept of a refused body; the
 * error comes from `tooLarge`. A request with neither `Content-Length` nor `Transfer-Encoding` has no body
 * (RFC 9112 §6.3), which is answered without touching the stream.
 */
export async function readBody(
  req: IncomingMessage,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    return Buffer.alloc(0);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size);
}
