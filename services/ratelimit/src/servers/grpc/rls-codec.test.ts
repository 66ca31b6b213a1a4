import { RATE_LIMIT_UNITS, type StructValue } from '@portcullis/config';
import { PROTO_FILES, loadProtoDefinition, toStruct } from '@portcullis/protos';
import { fuzz } from '@portcullis/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestError } from '../../errors.js';
import type { RateLimitRequest, RateLimitResponse } from '../../types.js';
import { PROTO_UNITS } from '../json-codec.js';
import { DEFAULT_REQUEST_BOUNDS } from '../request-bounds.js';
import { MalformedMessageError } from './proto-wire.js';
import { decodeRateLimitRequest, encodeRateLimitResponse, requireExactHitsAddends } from './rls-codec.js';

// The reference is what the grpc-js server did with the same bytes: proto-loader (protobufjs) with the
// loader options it used, and its mapping between proto-loader objects and the service's types.

const method = loadProtoDefinition([PROTO_FILES.rateLimitService], { longs: String })[
  'envoy.service.ratelimit.v3.RateLimitService'
] as unknown as Record<
  'ShouldRateLimit',
  {
    requestSerialize(o: object): Buffer;
    requestDeserialize(b: Buffer): Loader;
    responseSerialize(o: object): Buffer;
  }
>;
const rpc = method.ShouldRateLimit;
type Loader = Record<string, unknown> & {
  domain?: string;
  hitsAddend?: number;
  descriptors?: Array<{
    entries?: Array<{ key?: string; value?: string }>;
    limit?: { requestsPerUnit?: number; unit?: string | number };
    hitsAddend?: { value?: string } | null;
  }>;
};

/** The old server's reading of a proto-loader request (its `fromGrpcRequest`, without the range check). */
function fromLoader(r: Loader): RateLimitRequest {
  const unit = (u: string | number | undefined) => {
    const name = typeof u === 'number' ? (u === 7 ? 'WEEK' : undefined) : u;
    return RATE_LIMIT_UNITS.find((n) => n === name);
  };
  return {
    domain: r.domain ?? '',
    hitsAddend: r.hitsAddend ?? 0,
    descriptors: (r.descriptors ?? []).map((d) => ({
      entries: (d.entries ?? []).map((e) => ({ key: e.key ?? '', value: e.value ?? '' })),
      ...(d.limit
        ? { limit: { requestsPerUnit: d.limit.requestsPerUnit ?? 0, unit: unit(d.limit.unit) } }
        : {}),
      ...(d.hitsAddend ? { hitsAddend: Number(d.hitsAddend.value ?? 0) } : {}),
    })),
  };
}

/** Counts above 2^53 − 1 are refused whatever their value, which two decoders may round differently. */
function inexact(r: RateLimitRequest): RateLimitRequest {
  return {
    ...r,
    descriptors: r.descriptors.map((d) =>
      d.hitsAddend !== undefined && d.hitsAddend > Number.MAX_SAFE_INTEGER
        ? { ...d, hitsAddend: Infinity }
        : d,
    ),
  };
}

/** The old server's proto-loader response (its `toGrpcResponse`). */
function toLoader(r: RateLimitResponse): object {
  return {
    overallCode: r.overallCode,
    statuses: r.statuses.map((s) => ({
      code: s.code,
      currentLimit: s.currentLimit,
      limitRemaining: s.limitRemaining,
      durationUntilReset:
        s.durationUntilResetSec === undefined ? undefined : { seconds: s.durationUntilResetSec },
    })),
    responseHeadersToAdd: r.responseHeadersToAdd,
    ...(r.dynamicMetadata ? { dynamicMetadata: toStruct(r.dynamicMetadata) } : {}),
  };
}

const text = fc.string({ unit: 'binary', maxLength: 40 });
/** Response strings come from UTF-8 the service read, or from its configuration: no lone surrogates. */
const wellFormed = fc.string({ unit: 'grapheme', maxLength: 40 });
const uint32 = fc.integer({ min: 0, max: 0xffffffff });
const requests = fc.record(
  {
    domain: text,
    descriptors: fc.array(
      fc.record(
        {
          entries: fc.array(fc.record({ key: text, value: text }, { requiredKeys: [] }), { maxLength: 4 }),
          limit: fc.record(
            { requestsPerUnit: uint32, unit: fc.oneof(fc.constantFrom(...PROTO_UNITS), fc.integer()) },
            { requiredKeys: [] },
          ),
          hitsAddend: fc.record(
            {
              value: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), fc.nat().map(String)),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 5 },
    ),
    hitsAddend: uint32,
  },
  { requiredKeys: [] },
);

/** A field of a number the request does not have (4 to 99), of every wire type. */
const unknownField = fc.oneof(
  fc
    .tuple(fc.integer({ min: 4, max: 99 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
    .map(([n, v]) => Buffer.concat([varint(BigInt(n * 8)), varint(v)])),
  fc
    .tuple(fc.integer({ min: 4, max: 99 }), fc.uint8Array({ minLength: 8, maxLength: 8 }))
    .map(([n, b]) => Buffer.concat([varint(BigInt(n * 8 + 1)), b])),
  fc
    .tuple(fc.integer({ min: 4, max: 99 }), fc.uint8Array({ maxLength: 200 }))
    .map(([n, b]) => Buffer.concat([varint(BigInt(n * 8 + 2)), varint(BigInt(b.length)), b])),
  fc
    .tuple(fc.integer({ min: 4, max: 99 }), fc.uint8Array({ minLength: 4, maxLength: 4 }))
    .map(([n, b]) => Buffer.concat([varint(BigInt(n * 8 + 5)), b])),
  fc.integer({ min: 4, max: 99 }).map((n) =>
    // a group holding a varint field and a nested empty group
    Buffer.concat([
      varint(BigInt(n * 8 + 3)),
      Buffer.from([0x08, 0x01, 0x0b, 0x0c]),
      varint(BigInt(n * 8 + 4)),
    ]),
  ),
);

function varint(v: bigint): Buffer {
  const out: number[] = [];
  for (; v >= 0x80n; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  out.push(Number(v));
  return Buffer.from(out);
}

const decode = (b: Buffer) => decodeRateLimitRequest(b, DEFAULT_REQUEST_BOUNDS);

describe('decodeRateLimitRequest', () => {
  it('reads every request protobufjs writes as the grpc-js server read it', async () => {
    await fuzz(
      requests,
      (r) => {
        const bytes = rpc.requestSerialize(r);
        expect(inexact(decode(bytes))).toEqual(inexact(fromLoader(rpc.requestDeserialize(bytes))));
        return Promise.resolve(undefined);
      },
      { numRuns: 2000 },
    );
  });

  it('skips unknown fields of every wire type, wherever they are', async () => {
    await fuzz(
      fc.tuple(requests, fc.array(unknownField, { maxLength: 4 })),
      ([r, unknown]) => {
        const bytes = rpc.requestSerialize(r);
        expect(decode(Buffer.concat([...unknown, bytes]))).toEqual(decode(bytes));
        expect(decode(Buffer.concat([bytes, ...unknown]))).toEqual(decode(bytes));
        // inside a descriptor, and inside one of its entries
        const entry = Buffer.concat([...unknown, Buffer.from([0x0a, 0x01, 0x6b])]);
        const descriptor = Buffer.concat([
          ...unknown,
          Buffer.from([0x0a]),
          varint(BigInt(entry.length)),
          entry,
        ]);
        const request = Buffer.concat([Buffer.from([0x12]), varint(BigInt(descriptor.length)), descriptor]);
        expect(decode(request).descriptors).toEqual([{ entries: [{ key: 'k', value: '' }] }]);
        return Promise.resolve(undefined);
      },
      { numRuns: 500 },
    );
  });

  it('decodes invalid UTF-8 as protobufjs did, each bad sequence becoming U+FFFD', () => {
    const bytes = Buffer.from([0x0a, 0x04, 0x61, 0xff, 0xc3, 0x62]);
    expect(decode(bytes).domain).toBe(rpc.requestDeserialize(bytes).domain);
    expect(decode(bytes).domain).toBe('a\uFFFD\uFFFDb');
  });

  it('refuses truncated varints and lengths, bad wire types, field 0 and stray group ends', () => {
    const valid = rpc.requestSerialize({
      domain: 'domain',
      descriptors: [{ entries: [{ key: 'k', value: 'v' }], limit: { requestsPerUnit: 300, unit: 'HOUR' } }],
      hitsAddend: 300,
    });
    for (let cut = 1; cut < valid.length; cut++) {
      // every cut inside a field is malformed; cuts between top-level fields are shorter valid messages
      if ([8, valid.length - 3].includes(cut)) continue;
      expect(() => decode(valid.subarray(0, cut)), `cut at ${cut}`).toThrow(MalformedMessageError);
    }
    const refused = [
      [0x08, 0x01], // domain as a varint
      [0x0d, 0, 0, 0, 0], // domain as fixed32
      [0x18 | 2, 0x00], // hits_addend length-delimited
      [0x12, 0x02, 0x10, 0x01], // descriptor limit as a varint
      [0x00, 0x01], // field 0
      [0x24], // a group end with no start
      [0x23, 0x08], // an unterminated group
      [0x0e], // wire type 6
      [0x20, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], // an 11-byte varint
      [0x0a, 0x05, 0x61], // a string longer than the message (protobufjs cut it short)
    ];
    for (const bytes of refused)
      expect(() => decode(Buffer.from(bytes)), String(bytes)).toThrow(MalformedMessageError);
  });

  it('stops at the first descriptor or entry past the bounds, the rest of the message unread', () => {
    const bounds = { maxDescriptors: 1000, maxDescriptorEntries: 3 };
    const one = rpc.requestSerialize({ descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
    // a message that is malformed at its end: only a decoder that read that far would say so
    const truncated = Buffer.from([0x0a, 0x05, 0x61]);
    const bomb = Buffer.concat([...Array<Buffer>(300_000).fill(one), truncated]);
    const unbounded = { maxDescriptors: 1_000_000, maxDescriptorEntries: 3 };
    expect(() => decodeRateLimitRequest(bomb, unbounded)).toThrow(MalformedMessageError);
    expect(() => decodeRateLimitRequest(bomb, bounds)).toThrow(
      new RequestError(
        'descriptors[1000]: more than 1000 descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)',
      ),
    );
    expect(
      decodeRateLimitRequest(Buffer.concat(Array<Buffer>(1000).fill(one)), bounds).descriptors,
    ).toHaveLength(1000);

    const entries = (n: number) => Array.from({ length: n }, () => ({ key: 'k', value: 'v' }));
    const wide = (n: number) => rpc.requestSerialize({ descriptors: [{}, { entries: entries(n) }] });
    expect(decodeRateLimitRequest(wide(3), bounds).descriptors[1]?.entries).toHaveLength(3);
    expect(() => decodeRateLimitRequest(wide(4), bounds)).toThrow(
      new RequestError(
        'descriptors[1].entries[3]: more than 3 entries in one descriptor (RATELIMIT_MAX_DESCRIPTOR_ENTRIES)',
      ),
    );
  });

  it('leaves a hits_addend above 2^53 − 1 to requireExactHitsAddends, which names the descriptor', () => {
    const bytes = rpc.requestSerialize({
      domain: 'd',
      descriptors: [
        { hitsAddend: { value: '9007199254740991' } },
        { hitsAddend: { value: '9007199254740992' } },
      ],
    });
    const request = decode(bytes);
    expect(request.descriptors[0]?.hitsAddend).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => requireExactHitsAddends(request)).toThrow(
      new RequestError('descriptors[1].hits_addend: expected an unsigned integer ≤ 9007199254740991'),
    );
    expect(() => requireExactHitsAddends(decode(rpc.requestSerialize({ domain: 'd' })))).not.toThrow();
  });
});

const code = fc.constantFrom('UNKNOWN' as const, 'OK' as const, 'OVER_LIMIT' as const);
const structValue: fc.Arbitrary<StructValue> = fc.letrec<{ value: StructValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true }),
    wellFormed,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(wellFormed, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const responses: fc.Arbitrary<RateLimitResponse> = fc.record({
  overallCode: code,
  statuses: fc.array(
    fc.record({
      code,
      currentLimit: fc.option(
        fc.record({
          name: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
          requestsPerUnit: uint32,
          unit: fc.constantFrom(...RATE_LIMIT_UNITS),
        }),
        { nil: undefined },
      ),
      limitRemaining: uint32,
      durationUntilResetSec: fc.option(fc.nat({ max: 2 ** 40 }), { nil: undefined }),
    }),
    { maxLength: 30 },
  ),
  responseHeadersToAdd: fc.array(fc.record({ key: wellFormed, value: fc.string({ maxLength: 300 }) }), {
    maxLength: 3,
  }),
  dynamicMetadata: fc.option(fc.dictionary(wellFormed, structValue, { maxKeys: 4 }), { nil: undefined }),
});

describe('encodeRateLimitResponse', () => {
  it('writes the bytes the grpc-js server wrote for the same response, behind the gRPC message prefix', async () => {
    await fuzz(
      responses,
      (r) => {
        const theirs = rpc.responseSerialize(toLoader(r));
        const ours = encodeRateLimitResponse(r);
        expect(ours.readUInt8(0)).toBe(0);
        expect(ours.readUInt32BE(1)).toBe(theirs.length);
        expect(ours.subarray(5).toString('hex')).toBe(theirs.toString('hex'));
        return Promise.resolve(undefined);
      },
      { numRuns: 2000 },
    );
  });

  it('keeps the zeros protobufjs wrote: limit_remaining, requests_per_unit and a duration of 0 s', () => {
    const r: RateLimitResponse = {
      overallCode: 'OK',
      statuses: [
        {
          code: 'OK',
          currentLimit: { name: undefined, requestsPerUnit: 0, unit: 'WEEK' },
          limitRemaining: 0,
          durationUntilResetSec: 0,
        },
      ],
      responseHeadersToAdd: [],
      dynamicMetadata: undefined,
    };
    expect(encodeRateLimitResponse(r).subarray(5).toString('hex')).toBe(
      '0801120e0801120408001007180022020800',
    );
  });
});
