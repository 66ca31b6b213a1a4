import { compressionAlgorithms, status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRlsClient, startHarness, type Harness, type RlsClient } from './harness.js';

// Issue 34, finding 2: one gzip-compressed ShouldRateLimit of 28 KB carried 300,000 descriptors (under the
// 4 MiB decompressed cap) and stalled the process for seconds, growing it by ~500 MB per call.

const CONFIG = `domain: web
descriptors:
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 100000 }
`;

const descriptors = (n: number, entriesEach = 1) =>
  Array.from({ length: n }, (_, i) => ({
    entries: Array.from({ length: entriesEach }, (_, j) => ({
      key: j === 0 ? 'k' : `e${j}`,
      value: `v${i}`,
    })),
  }));
const ask = (n: number, entriesEach = 1) => ({ domain: 'web', descriptors: descriptors(n, entriesEach) });

const TOO_MANY_DESCRIPTORS =
  'descriptors[1000]: more than 1000 descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)';
const TOO_MANY_ENTRIES =
  'descriptors[0].entries[100]: more than 100 entries in one descriptor (RATELIMIT_MAX_DESCRIPTOR_ENTRIES)';

describe('issue 34: descriptors per request and entries per descriptor are bounded', () => {
  let h: Harness;
  let gzipped: RlsClient;
  beforeAll(async () => {
    h = await startHarness({ 'web.yaml': CONFIG });
    // as the attack sent it: every message gzip-compressed
    gzipped = createRlsClient(`127.0.0.1:${h.app.ports.grpc}`, undefined, {
      'grpc.default_compression_algorithm': compressionAlgorithms.gzip,
    });
  });
  afterAll(async () => {
    gzipped.close();
    await h.close();
  });

  it('gRPC (gzip): takes 1000 descriptors, refuses 1001 INVALID_ARGUMENT naming the field and the setting', async () => {
    const answer = await gzipped.shouldRateLimit(ask(1000));
    expect(answer).toMatchObject({ overallCode: 'OK' });
    expect(answer.statuses).toHaveLength(1000);
    await expect(gzipped.shouldRateLimit(ask(1001))).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: TOO_MANY_DESCRIPTORS,
    });
  });

  it('gRPC (gzip): takes 100 entries in a descriptor, refuses 101', async () => {
    expect(await gzipped.shouldRateLimit(ask(1, 100))).toMatchObject({ overallCode: 'OK' });
    await expect(gzipped.shouldRateLimit(ask(1, 101))).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: TOO_MANY_ENTRIES,
    });
  });

  it('gRPC (gzip): refuses the 300,000-descriptor bomb at the 1001st, and answers the next call', async () => {
    const bomb = { domain: 'web', descriptors: Array(300_000).fill({ entries: [{ key: 'k', value: 'v' }] }) };
    await expect(gzipped.shouldRateLimit(bomb)).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: TOO_MANY_DESCRIPTORS,
    });
    expect(await h.rls.shouldRateLimit(ask(1))).toMatchObject({ overallCode: 'OK' });
  });

  it('/json: takes 1000 descriptors and 100 entries, refuses one more of each 400 REQUEST_INVALID', async () => {
    expect(await h.json(ask(1000))).toMatchObject({ status: 200 });
    expect(await h.json(ask(1, 100))).toMatchObject({ status: 200 });
    expect(await h.json(ask(1001))).toMatchObject({
      status: 400,
      body: { error: TOO_MANY_DESCRIPTORS, code: 'REQUEST_INVALID' },
    });
    expect(await h.json(ask(1, 101))).toMatchObject({
      status: 400,
      body: { error: TOO_MANY_ENTRIES, code: 'REQUEST_INVALID' },
    });
  });

  it('/json: refuses the bomb that fits in its 1 MiB body (empty descriptors) before mapping it', async () => {
    const body = `{"domain":"web","descriptors":[${Array<string>(300_000).fill('{}').join(',')}]}`;
    expect(body.length).toBeLessThan(1024 * 1024);
    expect(await h.json(body)).toMatchObject({
      status: 400,
      body: { error: TOO_MANY_DESCRIPTORS, code: 'REQUEST_INVALID' },
    });
  });
});

describe('issue 34: the bounds are settings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      { 'web.yaml': CONFIG },
      { RATELIMIT_MAX_DESCRIPTORS: '2', RATELIMIT_MAX_DESCRIPTOR_ENTRIES: '3' },
    );
  });
  afterAll(() => h.close());

  it('refuses past RATELIMIT_MAX_DESCRIPTORS and RATELIMIT_MAX_DESCRIPTOR_ENTRIES on both ports', async () => {
    expect(await h.rls.shouldRateLimit(ask(2, 3))).toMatchObject({ overallCode: 'OK' });
    await expect(h.rls.shouldRateLimit(ask(3))).rejects.toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'descriptors[2]: more than 2 descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)',
    });
    expect(
      await h.json({ domain: 'web', descriptors: [...descriptors(1), ...descriptors(1, 4)] }),
    ).toMatchObject({
      status: 400,
      body: {
        error:
          'descriptors[1].entries[3]: more than 3 entries in one descriptor (RATELIMIT_MAX_DESCRIPTOR_ENTRIES)',
      },
    });
  });
});
