import { constants, type ClientHttp2Session } from 'node:http2';

/** `ShouldRateLimit`'s HTTP/2 path. */
export const METHOD = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

export interface GrpcAnswer {
  httpStatus: number;
  grpcStatus: string | undefined;
  message: string;
}

/** One call on its own stream: the given headers, then `payload` as written, then end of stream. */
export function call(
  session: ClientHttp2Session,
  payload: Buffer,
  headers: Record<string, string> = {},
): Promise<GrpcAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let httpStatus = 0;
    let grpcStatus: string | undefined;
    let message = '';
    const read = (h: Record<string, unknown>): void => {
      if (typeof h['grpc-status'] === 'string') grpcStatus = h['grpc-status'];
      if (typeof h['grpc-message'] === 'string') message = decodeURIComponent(h['grpc-message']);
    };
    const timer = setTimeout(() => {
      stream.close(constants.NGHTTP2_CANCEL);
      reject(new Error('no answer within 5 s'));
    }, 5000);
    stream.on('response', (h) => {
      httpStatus = Number(h[':status']);
      read(h);
    });
    stream.on('trailers', read);
    stream.on('data', () => undefined);
    stream.on('close', () => {
      clearTimeout(timer);
      resolve({ httpStatus, grpcStatus, message });
    });
    stream.on('error', () => undefined);
    stream.end(payload);
  });
}

/** The 5-byte gRPC message prefix: compressed flag and big-endian length. */
export function frame(body: Buffer, o: { compressed?: number; length?: number } = {}): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(o.compressed ?? 0, 0);
  prefix.writeUInt32BE(o.length ?? body.length, 1);
  return Buffer.concat([prefix, body]);
}
