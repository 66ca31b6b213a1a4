import { constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';

/** `ShouldRateLimit`'s HTTP/2 path. */
export const METHOD = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

export interface GrpcAnswer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders | undefined;
  body: Buffer;
  /** 0 when the stream closed before any response headers. */
  httpStatus: number;
  /** grpc-status and grpc-message, from the trailers or from a trailers-only answer's headers. */
  grpcStatus: string | undefined;
  message: string | undefined;
}

/**
 * One call on its own stream: `headers` over the defaults, `payload` as written, then the end of the stream
 * unless `open`. Rejects on a stream error or when nothing closed the stream within 5 s.
 */
export function call(
  session: ClientHttp2Session,
  payload: Buffer | undefined,
  o: { headers?: Record<string, string>; open?: boolean } = {},
): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...o.headers,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      stream.close(constants.NGHTTP2_CANCEL);
      reject(new Error('no answer within 5 s'));
    }, 5000);
    stream.on('response', (h: IncomingHttpHeaders) => {
      headers = h;
      // a trailers-only answer to a call still sending: the client stops, as grpc-js's client does
      if (o.open && h['grpc-status'] !== undefined) stream.close(constants.NGHTTP2_CANCEL);
    });
    stream.on('trailers', (t: IncomingHttpHeaders) => (trailers = t));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
    stream.on('close', () => {
      clearTimeout(timer);
      const from = trailers ?? headers;
      resolve({
        headers,
        trailers,
        body: Buffer.concat(chunks),
        httpStatus: Number(headers[':status'] ?? 0),
        grpcStatus: from['grpc-status'] as string | undefined,
        message:
          from['grpc-message'] === undefined ? undefined : decodeURIComponent(String(from['grpc-message'])),
      });
    });
    // node:http2 ends a GET or HEAD request's stream itself
    if (stream.writableEnded) return;
    if (payload) stream.write(payload);
    if (!o.open) stream.end();
  });
}

/** The 5-byte gRPC message prefix: compressed flag and big-endian length. */
export function frame(body: Buffer, o: { compressed?: number; length?: number } = {}): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(o.compressed ?? 0, 0);
  prefix.writeUInt32BE(o.length ?? body.length, 1);
  return Buffer.concat([prefix, body]);
}
