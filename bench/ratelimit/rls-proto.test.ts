import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { describe, expect, it } from 'vitest';
import { clientWorkload, encodeGrpcFrame, type RateLimitRequest } from './rls-proto.js';

describe('clientWorkload', () => {
  it('encodes N client descriptors in one gRPC frame, which protobufjs decodes back', () => {
    const frame = encodeGrpcFrame(clientWorkload(10).request);
    expect(frame[0]).toBe(0); // not compressed
    expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
    const codec = createMessageCodec<RateLimitRequest>(
      PROTO_FILES.rateLimitService,
      'envoy.service.ratelimit.v3.RateLimitRequest',
    );
    const decoded = codec.decode(frame.subarray(5));
    expect(decoded.domain).toBe('bench');
    expect(decoded.descriptors).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ entries: [{ key: 'client', value: `c${i}` }] })),
    );
  });

  it('expects OK: each descriptor is far below the client limit', () => {
    expect(clientWorkload(5).expectedCode).toBe('OK');
  });
});
