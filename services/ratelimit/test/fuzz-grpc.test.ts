import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { propagation } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import fc from 'fast-check';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { findInternalDetail, fuzz, fuzzTimeoutMs } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD, call, frame } from './grpc-frames.js';
import { startHarness, type Harness } from './harness.js';

// issue 15: gRPC frames as no well-behaved client sends them, on raw HTTP/2 streams. A message that
// decodes gets a decision or a client-error status; one that does not decode gets the gRPC library's own
// status for it; nothing hangs, nothing leaks, and the server keeps serving the well-formed call after.

const CONFIG = `domain: fuzz
descriptors:
  - key: client
    rate_limit: {unit: second, requests_per_unit: 2}
  - key: free
    rate_limit: {unlimited: true}
`;
const codec = createMessageCodec(PROTO_FILES.rateLimitService, 'envoy.service.ratelimit.v3.RateLimitRequest');
/** grpc-js's limit on a received message (4 MiB), so a prefix above it is refused on sight. */
const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

/** Statuses a decodable request may get: a decision, a refused field, a missing config, a limit. */
const DECODED_STATUSES = new Set(['0', '3', '8', '14']);
/** What grpc-js answers a frame it cannot read: INTERNAL (undecodable, bad compression), RESOURCE_EXHAUSTED. */
const FRAME_STATUSES = new Set(['0', '3', '8', '12', '13', '14']);

const entry = fc.record(
  { key: fc.constantFrom('client', 'free', 'other', ''), value: fc.string({ maxLength: 20 }) },
  { requiredKeys: [] },
);
const uint64 = fc.oneof(
  fc.nat(),
  fc.constantFrom('9007199254740991', '9007199254740993', '18446744073709551615'),
);
const rateLimitRequest = fc.record(
  {
    domain: fc.constantFrom('fuzz', 'other', ''),
    descriptors: fc.array(
      fc.record(
        {
          entries: fc.array(entry, { maxLength: 3 }),
          limit: fc.record({
            requestsPerUnit: fc.nat(),
            unit: fc.constantFrom('SECOND', 'MINUTE', 'HOUR', 'DAY', 'UNKNOWN', 7, 42),
          }),
          hitsAddend: fc.record({ value: uint64 }),
        },
        { requiredKeys: ['entries'] },
      ),
      { maxLength: 3 },
    ),
    hitsAddend: fc.nat(),
  },
  { requiredKeys: [] },
);
/** A request the config answers OK, never over a limit. */
const FREE = Buffer.from(
  codec.encode({ domain: 'fuzz', descriptors: [{ entries: [{ key: 'free', value: 'x' }] }] }),
);
const encoded = rateLimitRequest.map((r) => Buffer.from(codec.encode(r)));

type Shape =
  | { kind: 'valid'; body: Buffer }
  | { kind: 'bytes'; body: Buffer }
  | { kind: 'truncated'; body: Buffer }
  | { kind: 'flipped'; body: Buffer }
  | { kind: 'compressed'; body: Buffer; encoding: string | undefined }
  | { kind: 'long prefix'; body: Buffer; length: number }
  | { kind: 'short prefix'; body: Buffer; cut: number }
  | { kind: 'two messages'; body: Buffer }
  | { kind: 'bare bytes'; body: Buffer };

const shapes: fc.Arbitrary<Shape> = fc.oneof(
  encoded.map((body) => ({ kind: 'valid' as const, body })),
  fc.uint8Array({ maxLength: 200 }).map((a) => ({ kind: 'bytes' as const, body: Buffer.from(a) })),
  fc.tuple(encoded, fc.nat()).map(([b, n]) => ({
    kind: 'truncated' as const,
    body: b.subarray(0, b.length === 0 ? 0 : n % b.length),
  })),
  fc.tuple(encoded, fc.nat(), fc.integer({ min: 1, max: 255 })).map(([b, n, x]) => {
    const copy = Buffer.from(b);
    if (copy.length > 0) copy[n % copy.length] = (copy[n % copy.length] ?? 0) ^ x;
    return { kind: 'flipped' as const, body: copy };
  }),
  fc
    .tuple(encoded, fc.constantFrom(undefined, 'identity', 'gzip', 'deflate', 'snappy'))
    .map(([body, encoding]) => ({ kind: 'compressed' as const, body, encoding })),
  fc
    .tuple(encoded, fc.constantFrom(MAX_RECEIVE_BYTES + 1, 0xffffffff, 1000))
    .map(([body, length]) => ({ kind: 'long prefix' as const, body, length })),
  fc
    .tuple(encoded, fc.integer({ min: 1, max: 5 }))
    .map(([body, cut]) => ({ kind: 'short prefix' as const, body, cut })),
  fc
    .tuple(encoded, encoded)
    .map(([a, b]) => ({ kind: 'two messages' as const, body: Buffer.concat([frame(a), frame(b)]) })),
  fc.uint8Array({ maxLength: 4 }).map((a) => ({ kind: 'bare bytes' as const, body: Buffer.from(a) })),
);

function payloadOf(s: Shape): { payload: Buffer; headers: Record<string, string> } {
  switch (s.kind) {
    case 'valid':
    case 'bytes':
    case 'truncated':
    case 'flipped':
      return { payload: frame(s.body), headers: {} };
    case 'compressed':
      return {
        payload: frame(s.body, { compressed: 1 }),
        headers: s.encoding === undefined ? {} : { 'grpc-encoding': s.encoding },
      };
    case 'long prefix':
      return { payload: frame(s.body, { length: s.length }), headers: {} };
    case 'short prefix':
      return { payload: frame(s.body).subarray(0, s.cut), headers: {} };
    case 'two messages':
    case 'bare bytes':
      return { payload: s.body, headers: {} };
    default: {
      const unknown: never = s;
      throw new Error(`unknown shape ${String(unknown)}`);
    }
  }
}

describe('ratelimit gRPC frame fuzz (issue 15)', { timeout: fuzzTimeoutMs() }, () => {
  let h: Harness;
  let session: ClientHttp2Session;

  beforeAll(async () => {
    h = await startHarness({ 'fuzz.yaml': CONFIG });
    session = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
  });
  afterAll(async () => {
    session.close();
    await h.close();
  });

  it('answers every frame with a defined status, no leak, and never INTERNAL for a message that decodes', async () => {
    await fuzz(
      shapes,
      async (shape) => {
        const { payload, headers } = payloadOf(shape);
        const a = await call(session, payload, { headers });
        if (a.httpStatus !== 200) return `HTTP status ${a.httpStatus}`;
        if (a.grpcStatus === undefined) return 'no grpc-status';
        const allowed = shape.kind === 'valid' ? DECODED_STATUSES : FRAME_STATUSES;
        if (!allowed.has(a.grpcStatus)) return `grpc-status ${a.grpcStatus}: ${a.message}`;
        const leak = findInternalDetail(a.message ?? '');
        return leak === undefined ? undefined : `grpc-message leaks ${leak}: ${a.message}`;
      },
      { numRuns: 1200 },
    );
  });

  it('answers a well-formed call whatever its metadata holds: timeouts, trace context, baggage, -bin values', async () => {
    // as TRACING_ENABLED=true registers it: the propagators read traceparent and baggage from every call
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    const text = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 80,
    });
    const metadata = fc.record(
      {
        'grpc-timeout': fc.oneof(
          fc.constantFrom('1n', '0S', '99999999H', '1x', 'abc', '-1S', '100000000m'),
          text,
        ),
        traceparent: fc.oneof(
          fc.constantFrom(
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            '00-00000000000000000000000000000000-0000000000000000-01',
            'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
          ),
          text,
        ),
        tracestate: text,
        baggage: fc.oneof(fc.constantFrom('a=b', 'a=%ZZ', 'k=v,'.repeat(200), ';;;=', '=,='), text),
        'grpc-encoding': fc.constantFrom('identity', 'gzip', 'br', 'x-unknown'),
        'grpc-accept-encoding': text,
        'x-data-bin': fc.oneof(fc.constantFrom('!!!', '====', 'AA'), text),
        'user-agent': text,
      },
      { requiredKeys: [] },
    );
    const body = frame(
      Buffer.from(
        codec.encode({ domain: 'fuzz', descriptors: [{ entries: [{ key: 'free', value: 'x' }] }] }),
      ),
    );
    await fuzz(
      metadata,
      async (headers) => {
        const a = await call(session, body, { headers });
        if (a.httpStatus !== 200 || a.grpcStatus === undefined)
          return `HTTP ${a.httpStatus}, grpc-status ${a.grpcStatus}`;
        // an unknown grpc-encoding is UNIMPLEMENTED, a past deadline DEADLINE_EXCEEDED and a malformed
        // grpc-timeout INTERNAL, as grpc-js (and grpc-go) answer them before any handler runs
        const timeout = headers['grpc-timeout'];
        const allowed = [
          '0',
          '4',
          '12',
          ...(timeout !== undefined && !/^\d{1,8}[HMSmun]$/.test(timeout) ? ['13'] : []),
        ];
        if (!allowed.includes(a.grpcStatus)) return `grpc-status ${a.grpcStatus}: ${a.message}`;
        const leak = findInternalDetail(a.message ?? '');
        return leak === undefined ? undefined : `grpc-message leaks ${leak}: ${a.message}`;
      },
      { numRuns: 300 },
    );
  });

  it('refuses other paths, content types and methods with a gRPC or HTTP status, not a hang', async () => {
    await fuzz(
      fc.record({
        ':path': fc.constantFrom(
          METHOD,
          '/envoy.service.ratelimit.v3.RateLimitService/Other',
          // not Watch: a server stream that stays open by design
          '/grpc.health.v1.Health/Check',
          '/',
          '/%2e%2e/x',
        ),
        'content-type': fc.constantFrom(
          'application/grpc',
          'application/grpc+proto',
          'application/json',
          'text/plain',
        ),
        ':method': fc.constantFrom('POST', 'GET', 'PUT'),
      }),
      async (headers) => {
        const a = await call(session, frame(Buffer.alloc(0)), { headers });
        const got = `HTTP ${a.httpStatus}, grpc-status ${a.grpcStatus}`;
        // the server answers by content type, then path; the method only as far as it carries a message, as
        // grpc-js
        if (!headers['content-type'].startsWith('application/grpc'))
          return a.httpStatus === 415 && a.grpcStatus === undefined ? undefined : `${got}, not HTTP 415`;
        if (a.httpStatus !== 200 || a.grpcStatus === undefined) return `${got}, not a gRPC status`;
        // UNIMPLEMENTED for a path it does not serve, and for a GET (node:http2 ends it with no message)
        const served = headers[':path'] === METHOD || headers[':path'] === '/grpc.health.v1.Health/Check';
        const unimplemented = !served || headers[':method'] === 'GET';
        if (unimplemented !== (a.grpcStatus === '12'))
          return `${got} for ${headers[':method']} ${headers[':path']}`;
        const leak = findInternalDetail(a.message ?? '');
        return leak === undefined ? undefined : `grpc-message leaks ${leak}: ${a.message}`;
      },
      { numRuns: 200 },
    );
  });

  it('survives calls the client cancels mid-message or right after sending', async () => {
    await fuzz(
      fc.tuple(shapes, fc.nat({ max: 40 }), fc.boolean()),
      async ([shape, cut, whole]) => {
        const { payload, headers } = payloadOf(shape);
        const stream = session.request({
          ':method': 'POST',
          ':path': METHOD,
          'content-type': 'application/grpc',
          te: 'trailers',
          ...headers,
        });
        stream.on('error', () => undefined);
        stream.write(whole ? payload : payload.subarray(0, cut));
        await new Promise<void>((resolve) => {
          stream.close(constants.NGHTTP2_CANCEL, resolve);
        });
        // survived: the same connection still answers a decision
        const after = await call(session, frame(FREE));
        return after.grpcStatus === '0' ? undefined : `after the cancel: grpc-status ${after.grpcStatus}`;
      },
      { numRuns: 300 },
    );
  });

  it('serves a well-formed call on the same connection and a new one afterwards', async () => {
    const request = { domain: 'fuzz', descriptors: [{ entries: [{ key: 'free', value: 'x' }] }] };
    const same = await call(session, frame(Buffer.from(codec.encode(request))));
    expect(same.grpcStatus).toBe('0');
    expect(await h.rls.shouldRateLimit(request)).toMatchObject({ overallCode: 'OK' });
    expect(await h.get('/healthcheck')).toEqual({ status: 200, text: 'OK' });
  });
});
