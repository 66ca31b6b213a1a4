import { createConnection } from 'node:net';
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { deflateSync, gzipSync } from 'node:zlib';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { redisCli, startRedis, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD, call, frame } from './grpc-frames.js';
import { startHarness, type Harness } from './harness.js';

// The gRPC transport of issue 18's server on node:http2, on raw HTTP/2 streams: what grpc-js answered
// (and what it did not test), kept.

const CONFIG = 'domain: t\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1000}\n';
const codec = createMessageCodec(PROTO_FILES.rateLimitService, 'envoy.service.ratelimit.v3.RateLimitRequest');
const REQUEST = Buffer.from(
  codec.encode({ domain: 't', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] }),
);
const MAX_RECEIVE = 4 * 1024 * 1024;

describe('gRPC transport', () => {
  let h: Harness;
  let session: ClientHttp2Session;

  beforeAll(async () => {
    h = await startHarness({ 't.yaml': CONFIG });
    session = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
  });
  afterAll(async () => {
    session.close();
    await h.close();
  });

  it('answers a call with headers, one message and grpc-status 0 in trailers', async () => {
    const a = await call(session, frame(REQUEST));
    expect(a.headers).toMatchObject({ ':status': 200, 'content-type': 'application/grpc+proto' });
    expect(a.trailers).toMatchObject({ 'grpc-status': '0', 'grpc-message': 'OK' });
    expect(a.body.readUInt8(0)).toBe(0);
    expect(a.body.readUInt32BE(1)).toBe(a.body.length - 5);
  });

  it('answers an unknown method UNIMPLEMENTED, trailers-only, and another content type 415', async () => {
    const a = await call(session, frame(REQUEST), { headers: { ':path': '/x.Y/Z' } });
    expect(a.trailers).toBeUndefined();
    expect(a.headers).toMatchObject({ ':status': 200, 'grpc-status': '12' });
    expect(a.message).toBe('The server does not implement the method /x.Y/Z');
    const json = await call(session, frame(REQUEST), { headers: { 'content-type': 'application/json' } });
    expect(json.headers[':status']).toBe(415);
  });

  it('answers DEADLINE_EXCEEDED when grpc-timeout passes before the request is complete', async () => {
    const a = await call(session, frame(REQUEST).subarray(0, 7), {
      headers: { 'grpc-timeout': '50m' },
      open: true,
    });
    expect([a.grpcStatus, a.message]).toEqual(['4', 'Deadline exceeded']);
    const past = await call(session, frame(REQUEST), { headers: { 'grpc-timeout': '0S' } });
    expect(past.grpcStatus).toBe('4');
    const malformed = await call(session, frame(REQUEST), { headers: { 'grpc-timeout': '1 S' } });
    expect([malformed.grpcStatus, malformed.message]).toEqual(['13', 'Invalid grpc-timeout value "1 S"']);
    expect(
      (await call(session, frame(REQUEST), { headers: { 'grpc-timeout': '99999999H' } })).grpcStatus,
    ).toBe('0');
  });

  it('takes a message of 4 MiB and refuses a longer one RESOURCE_EXHAUSTED on its prefix', async () => {
    // the request with an unknown length-delimited field (number 15) padding it to exactly 4 MiB
    const pad = MAX_RECEIVE - REQUEST.length - 1 - 4;
    const length = [pad & 0x7f, (pad >> 7) & 0x7f, (pad >> 14) & 0x7f, pad >> 21].map((b, i) =>
      i < 3 ? b | 0x80 : b,
    );
    const padding = Buffer.concat([Buffer.from([0x7a, ...length]), Buffer.alloc(pad)]);
    const largest = Buffer.concat([REQUEST, padding]);
    expect(largest.length).toBe(MAX_RECEIVE);
    expect((await call(session, frame(largest))).grpcStatus).toBe('0');
    const a = await call(session, frame(REQUEST, { length: MAX_RECEIVE + 1 }));
    expect([a.grpcStatus, a.message]).toEqual([
      '8',
      `Received message larger than max (${MAX_RECEIVE + 1} vs ${MAX_RECEIVE})`,
    ]);
  });

  it('inflates gzip and deflate, refuses other encodings UNIMPLEMENTED naming the accepted ones', async () => {
    const compressed = (body: Buffer, encoding: string) =>
      call(session, frame(body, { compressed: 1 }), { headers: { 'grpc-encoding': encoding } });
    expect((await compressed(gzipSync(REQUEST), 'gzip')).grpcStatus).toBe('0');
    expect((await compressed(deflateSync(REQUEST), 'deflate')).grpcStatus).toBe('0');
    const snappy = await compressed(REQUEST, 'snappy');
    expect([snappy.grpcStatus, snappy.message]).toEqual([
      '12',
      'Received message compressed with unsupported encoding "snappy"',
    ]);
    expect(snappy.headers['grpc-accept-encoding']).toBe('identity,deflate,gzip');
    const corrupt = await compressed(REQUEST, 'gzip');
    expect([corrupt.grpcStatus, corrupt.message]).toEqual(['13', 'Failed to decompress message']);
    const bomb = await compressed(gzipSync(Buffer.alloc(MAX_RECEIVE + 1)), 'gzip');
    expect(bomb.grpcStatus).toBe('8');
  });

  it('refuses INTERNAL a message flagged compressed without an encoding, or with an unknown flag', async () => {
    const noEncoding = await call(session, frame(REQUEST, { compressed: 1 }));
    expect(noEncoding.grpcStatus).toBe('13');
    const identity = await call(session, frame(REQUEST, { compressed: 1 }), {
      headers: { 'grpc-encoding': 'identity' },
    });
    expect(identity.grpcStatus).toBe('13');
    expect((await call(session, frame(REQUEST, { compressed: 2 }))).grpcStatus).toBe('13');
  });

  it('answers malformed frames: undecodable INTERNAL, none or two messages UNIMPLEMENTED', async () => {
    const undecodable = await call(session, frame(Buffer.from([0x0a, 0x05, 0x61])));
    expect([undecodable.grpcStatus, undecodable.message]).toEqual(['13', 'Error deserializing request']);
    expect((await call(session, undefined)).grpcStatus).toBe('12');
    expect((await call(session, frame(REQUEST).subarray(0, 3))).grpcStatus).toBe('12');
    expect((await call(session, Buffer.concat([frame(REQUEST), frame(REQUEST)]))).grpcStatus).toBe('12');
  });

  it('survives clients that reset streams mid-call with any error code, or drop the connection', async () => {
    const codes = [
      constants.NGHTTP2_CANCEL,
      constants.NGHTTP2_INTERNAL_ERROR,
      constants.NGHTTP2_PROTOCOL_ERROR,
      constants.NGHTTP2_STREAM_CLOSED,
      constants.NGHTTP2_REFUSED_STREAM,
    ];
    const rude = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
    rude.on('error', () => undefined);
    for (let i = 0; i < 200; i++) {
      const stream = rude.request({ ':method': 'POST', ':path': METHOD, 'content-type': 'application/grpc' });
      stream.on('error', () => undefined);
      // half the calls are complete and reset while the server answers, half reset mid-message
      stream.write(i % 2 === 0 ? frame(REQUEST) : frame(REQUEST).subarray(0, 6));
      if (i % 2 === 0) stream.end();
      const code = codes[i % codes.length] ?? constants.NGHTTP2_CANCEL;
      if (i % 4 === 0) setImmediate(() => stream.close(code));
      else stream.close(code);
    }
    const dropped = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
    dropped.on('error', () => undefined);
    for (let i = 0; i < 20; i++) {
      const stream = dropped.request({
        ':method': 'POST',
        ':path': METHOD,
        'content-type': 'application/grpc',
      });
      stream.on('error', () => undefined);
      stream.end(frame(REQUEST));
    }
    dropped.destroy();
    await new Promise((r) => setTimeout(r, 100));
    rude.destroy();
    expect((await call(session, frame(REQUEST))).grpcStatus).toBe('0');
    expect(
      await h.rls.shouldRateLimit({ domain: 't', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] }),
    ).toMatchObject({
      overallCode: 'OK',
    });
  });

  it('drops HTTP/1.1 and garbage on the gRPC port, and keeps serving', async () => {
    for (const bytes of [
      'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x01\x07',
    ]) {
      const socket = createConnection(h.app.ports.grpc, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      socket.end(bytes);
      await new Promise((resolve) => socket.on('close', resolve));
    }
    expect((await call(session, frame(REQUEST))).grpcStatus).toBe('0');
  });
});

describe('gRPC connection age', () => {
  it('sends GOAWAY (NO_ERROR) after GRPC_MAX_CONNECTION_AGE, lets the call in flight finish, then closes', async () => {
    const h = await startHarness(
      { 't.yaml': CONFIG },
      { GRPC_MAX_CONNECTION_AGE: '300ms', GRPC_MAX_CONNECTION_AGE_GRACE: '0' },
    );
    const session = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
    try {
      let goaway: number | undefined;
      session.on('goaway', (code: number) => (goaway = code));
      const closed = new Promise((resolve) => session.on('close', resolve));
      // a call held open (no end of stream) across the GOAWAY, then completed
      const stream = session.request({
        ':method': 'POST',
        ':path': METHOD,
        'content-type': 'application/grpc',
      });
      let status: unknown;
      stream.on('trailers', (t: IncomingHttpHeaders) => (status = t['grpc-status']));
      stream.on('data', () => undefined);
      stream.write(frame(REQUEST));
      await waitUntil(() => goaway !== undefined, 5000);
      expect(goaway).toBe(constants.NGHTTP2_NO_ERROR);
      stream.end();
      await closed;
      expect(status).toBe('0');
    } finally {
      session.destroy();
      await h.close();
    }
  });
});

describe('gRPC deadline of a call in flight', () => {
  it('answers DEADLINE_EXCEEDED while Redis holds the decision, drops the late answer and counts the call', async () => {
    const redis = await startRedis();
    const h = await startHarness({ 't.yaml': CONFIG }, { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address });
    const session = connect(`http://127.0.0.1:${h.app.ports.grpc}`);
    const calls = async () =>
      (await h.get('/metrics', 'debug')).text
        .split('\n')
        .find((l) => l.startsWith('ratelimit_service_total_requests{') && l.includes('ShouldRateLimit'));
    try {
      await redisCli(redis.port, 'CLIENT', 'PAUSE', '1500', 'ALL');
      const a = await call(session, frame(REQUEST), { headers: { 'grpc-timeout': '200m' } });
      expect([a.grpcStatus, a.message]).toEqual(['4', 'Deadline exceeded']);
      expect(await calls()).toMatch(/ 0$/);
      await waitUntil(async () => (await calls())?.endsWith(' 1') === true, 10_000);
      expect((await call(session, frame(REQUEST), { headers: { 'grpc-timeout': '5S' } })).grpcStatus).toBe(
        '0',
      );
    } finally {
      session.close();
      await h.close();
      await redis.stop();
    }
  });
});
