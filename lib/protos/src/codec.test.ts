import { describe, expect, it } from 'vitest';
import { createMessageCodec } from './codec.js';
import { PROTO_FILES } from './load.js';

describe('createMessageCodec', () => {
  it("round-trips upstream's RateLimitConfig resource", () => {
    const codec = createMessageCodec(PROTO_FILES.rateLimitConfig, 'ratelimit.config.ratelimit.v3.RateLimitConfig');
    expect(codec.typeUrl).toBe('type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig');
    const message = {
      name: 'ns/web',
      domain: 'web',
      descriptors: [
        {
          key: 'k',
          rateLimit: { unit: 'WEEK', requestsPerUnit: 7, replaces: [{ name: 'x' }] },
          descriptors: [{ key: 'inner', shadowMode: true }],
        },
      ],
    };
    const bytes = codec.encode(message);
    // field 1 (name), wire type 2: tag byte 0x0a, then the length and the text
    expect(Buffer.from(bytes.subarray(0, 8)).toString('latin1')).toBe('\n\u0006ns/web');
    expect(codec.decode(bytes)).toEqual(message);
  });

});
