import { describe, expect, it } from 'vitest';
import { createMessageCodec } from './codec.js';
import { PROTO_FILES } from './load.js';
import { fromStruct, toStruct } from './struct.js';

describe('toStruct and fromStruct', () => {
  it('round-trip every kind of value through the wire form of google.protobuf.Struct', () => {
    const codec = createMessageCodec(PROTO_FILES.rateLimitConfig, 'ratelimit.config.ratelimit.v3.RateLimitConfig');
    const metadata = { s: 'a', n: 5.5, b: false, none: null, list: ['x', 1, [true]], nested: { deep: { k: 'v' } } };
    const decoded = codec.decode(
      codec.encode({ name: 'n', domain: 'd', descriptors: [{ key: 'k', metadata: toStruct(metadata) }] }),
    ) as { descriptors: Array<{ metadata: unknown }> };
    expect(fromStruct(decoded.descriptors[0]?.metadata)).toEqual(metadata);
  });
});
