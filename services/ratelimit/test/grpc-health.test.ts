import {
  credentials,
  status as GrpcStatus,
  type Client,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { waitUntil } from '@portcullis/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadHealthServiceDefinition } from '../src/servers/grpc-health.js';
import { startHarness, type Harness } from './harness.js';

interface HealthClient extends Client {
  Check(req: { service: string }, cb: (err: ServiceError | null, res: { status: string }) => void): void;
  Watch(req: { service: string }): ClientReadableStream<{ status: string }>;
}

function createHealthClient(port: number): HealthClient {
  const Ctor = loadHealthServiceDefinition();
  return new Ctor(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as HealthClient;
}

const check = (client: HealthClient, service: string) =>
  new Promise<string | number>((resolve) =>
    client.Check({ service }, (err, res) => resolve(err ? err.code : res.status)),
  );

/** Every status a Watch stream sends, and how it ended (a gRPC status code). */
function watch(client: HealthClient, service: string) {
  const statuses: string[] = [];
  const stream = client.Watch({ service });
  stream.on('data', (m: { status: string }) => statuses.push(m.status));
  const ended = new Promise<number>((resolve) => {
    stream.on('error', (e: ServiceError) => resolve(e.code));
    stream.on('status', (s: { code: number }) => resolve(s.code));
  });
  return { statuses, ended, stream };
}

describe('grpc.health.v1.Health', () => {
  let h: Harness;
  let client: HealthClient;

  beforeAll(async () => {
    h = await startHarness({ 'a.yaml': 'domain: a\n' });
    client = createHealthClient(h.app.ports.grpc);
  });
  afterAll(async () => {
    client.close();
    await h.close();
  });
  afterEach(() => h.app.health.set('sigterm', true));

  it('answers Check: the server SERVING, "ratelimit" as /healthcheck, others NOT_FOUND', async () => {
    expect(await check(client, '')).toBe('SERVING');
    expect(await check(client, 'ratelimit')).toBe('SERVING');
    expect(await check(client, 'other')).toBe(GrpcStatus.NOT_FOUND);
    h.app.health.set('sigterm', false);
    expect(await check(client, 'ratelimit')).toBe('NOT_SERVING');
    expect(await check(client, '')).toBe('SERVING');
    expect((await h.get('/healthcheck')).status).toBe(500);
  });

  it('streams each change to Watch, and SERVICE_UNKNOWN for an unknown name', async () => {
    const w = watch(client, 'ratelimit');
    const unknown = watch(client, 'other');
    await waitUntil(() => w.statuses.length === 1 && unknown.statuses.length === 1);
    h.app.health.set('sigterm', false);
    await waitUntil(() => w.statuses.length === 2);
    expect(w.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(unknown.statuses).toEqual(['SERVICE_UNKNOWN']);
    w.stream.cancel();
    unknown.stream.cancel();
    expect(await w.ended).toBe(GrpcStatus.CANCELLED);
  });
});

describe('gRPC connection age', () => {
  it('cuts a stream still open after GRPC_MAX_CONNECTION_AGE plus the grace', async () => {
    const h = await startHarness(
      { 'a.yaml': 'domain: a\n' },
      { GRPC_MAX_CONNECTION_AGE: '200ms', GRPC_MAX_CONNECTION_AGE_GRACE: '200ms' },
    );
    const client = createHealthClient(h.app.ports.grpc);
    try {
      const w = watch(client, 'ratelimit');
      expect(await w.ended).toBe(GrpcStatus.UNAVAILABLE);
      expect(w.statuses).toEqual(['SERVING']);
      // the client reconnects on a fresh connection
      expect(await check(client, 'ratelimit')).toBe('SERVING');
    } finally {
      client.close();
      await h.close();
    }
  });

  it('ends Watch streams when the server closes, so shutdown does not wait for them', async () => {
    const h = await startHarness({ 'a.yaml': 'domain: a\n' });
    const client = createHealthClient(h.app.ports.grpc);
    const w = watch(client, 'ratelimit');
    await waitUntil(() => w.statuses.length === 1);
    await h.close();
    expect(await w.ended).toBe(GrpcStatus.OK);
    client.close();
  });
});
