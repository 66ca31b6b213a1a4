import { status as GrpcStatus } from '@grpc/grpc-js';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  EMPTY_VERSION,
  XdsClientClosedError,
  createSotwClient,
  createSotwServer,
  type ReceivedResource,
  type SotwClient,
  type SotwClientOptions,
  type SotwServerEvents,
} from '@portcullis/xds';
import { freePort, waitUntil } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCollectingLog,
  quietLog,
  startScriptedServer,
  startServer,
  type AdsServerCall,
} from './harness.js';

interface RateLimitConfig {
  name: string;
  domain?: string;
}
const codec = createMessageCodec<RateLimitConfig>(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);
const RLC = codec.typeUrl;
const config = (name: string, domain?: string) => ({ name, value: codec.encode({ name, domain }) });
const anyOf = (name: string, domain?: string) => ({ type_url: RLC, value: config(name, domain).value });

/** What a service does with its config: validate all of it, then swap it in whole. */
function createHolder() {
  const holder = {
    domains: [] as string[],
    versions: [] as string[],
    onResources: (_typeUrl: string, version: string, resources: readonly ReceivedResource[]) => {
      const configs = resources.map((r) => codec.decode(r.value));
      const bad = configs.find((c) => !c.domain);
      if (bad) throw new Error(`${bad.name}: domain: must not be empty`);
      holder.domains = configs.map((c) => c.domain ?? '');
      holder.versions.push(version);
    },
  };
  return holder;
}

const clients: SotwClient[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const f of cleanups.splice(0)) await f();
});

function startClient(opts: Partial<SotwClientOptions> & Pick<SotwClientOptions, 'serverUrl'>): SotwClient {
  const client = createSotwClient({
    nodeId: 'ratelimit-0',
    typeUrls: [RLC],
    onResources: () => undefined,
    retryIntervalMs: 100,
    log: quietLog,
    ...opts,
  });
  clients.push(client);
  client.start();
  return client;
}

describe('SotwClient requests, seen by a scripted server', () => {
  it("sends upstream ratelimit's requests: first, ACK, NACK with the last ACKed version, resubscribe", async () => {
    const scripted = await startScriptedServer();
    cleanups.push(scripted.close);
    const holder = createHolder();
    startClient({
      serverUrl: `127.0.0.1:${scripted.port}`,
      nodeMetadata: { zone: 'eu-1' },
      additionalHeaders: { 'x-tenant': 'blue' },
      onResources: holder.onResources,
    });
    const node = {
      id: 'ratelimit-0',
      metadata: { fields: { zone: { stringValue: 'eu-1', kind: 'stringValue' } } },
    };
    const [first] = await scripted.requests(0, 1);
    expect(first).toEqual({ node, typeUrl: RLC });
    expect(scripted.streams[0]?.headers['x-tenant']).toBe('blue');
    const call = scripted.streams[0]!.call;

    call.write({ versionInfo: 'v1', typeUrl: RLC, nonce: 'n1', resources: [anyOf('a', 'web')] });
    expect((await scripted.requests(0, 2))[1]).toEqual({
      node,
      typeUrl: RLC,
      versionInfo: 'v1',
      responseNonce: 'n1',
    });
    expect(holder.domains).toEqual(['web']);

    call.write({ versionInfo: 'v2', typeUrl: RLC, nonce: 'n2', resources: [anyOf('a', 'web'), anyOf('b')] });
    expect((await scripted.requests(0, 3))[2]).toEqual({
      node,
      typeUrl: RLC,
      versionInfo: 'v1',
      responseNonce: 'n2',
      errorDetail: { code: GrpcStatus.INVALID_ARGUMENT, message: 'b: domain: must not be empty' },
    });
    expect(holder.domains).toEqual(['web']);

    call.write({
      versionInfo: 'v3',
      typeUrl: RLC,
      nonce: 'n3',
      resources: [{ type_url: 'type.googleapis.com/x.Y', value: Buffer.alloc(0) }],
    });
    expect((await scripted.requests(0, 4))[3]).toMatchObject({
      versionInfo: 'v1',
      responseNonce: 'n3',
      errorDetail: { message: `resources[0]: type type.googleapis.com/x.Y, expected ${RLC}` },
    });

    // the next stream reports the last ACKed version and, like upstream, the last nonce received
    call.emit('error', { code: GrpcStatus.UNAVAILABLE, details: 'going away' });
    expect(await scripted.requests(1, 1)).toEqual([
      { node, typeUrl: RLC, versionInfo: 'v1', responseNonce: 'n3' },
    ]);
    expect(holder.versions).toEqual(['v1']);
  });

  it('waits at least the retry interval between streams, so a reset stream cannot spin (upstream #502)', async () => {
    const reset = (call: AdsServerCall): void => {
      call.emit('error', { code: GrpcStatus.INTERNAL, details: 'reset' });
    };
    const [waiting, counting] = await Promise.all([startScriptedServer(reset), startScriptedServer(reset)]);
    cleanups.push(waiting.close, counting.close);
    const { log, lines } = createCollectingLog();
    const retrying = (): Record<string, unknown> | undefined =>
      lines.find((l) => l['@message'] === 'xDS stream ended, retrying');
    // an hour between streams: a client that did not wait would open many while the other one opens four
    startClient({ serverUrl: `127.0.0.1:${waiting.port}`, retryIntervalMs: 3_600_000, log });
    await waitUntil(() => retrying() !== undefined);
    expect(retrying()).toMatchObject({
      component: 'xds-client',
      code: GrpcStatus.INTERNAL,
      details: 'reset',
    });
    startClient({ serverUrl: `127.0.0.1:${counting.port}`, retryIntervalMs: 100 });
    await waitUntil(() => counting.streams.length >= 4);
    expect(waiting.streams.length).toBe(1);
  });
});

describe('SotwClient against SotwServer', () => {
  it('gets an empty snapshot at once: firstUpdate resolves with zero resources', async () => {
    const server = await startServer();
    cleanups.push(() => server.close());
    const seen: Array<[string, number]> = [];
    const client = startClient({
      serverUrl: `127.0.0.1:${server.port}`,
      onResources: (_t, version, resources) => void seen.push([version, resources.length]),
    });
    await client.firstUpdate();
    expect(seen).toEqual([[EMPTY_VERSION, 0]]);
    expect(client.connected).toBe(true);
  });

  it('two clients with different node ids are both seen, with connect and disconnect events', async () => {
    const server = await startServer();
    cleanups.push(() => server.close());
    const events: string[] = [];
    server.on('connect', (e) => events.push(`connect ${e.nodeId}`));
    server.on('disconnect', (e) => events.push(`disconnect ${e.nodeId}`));
    const version = server.setResources(RLC, [config('a', 'web')]);
    const url = `127.0.0.1:${server.port}`;
    const one = startClient({ serverUrl: url, nodeId: 'ratelimit-0' });
    const two = startClient({ serverUrl: url, nodeId: 'ratelimit-1' });
    await Promise.all([one.firstUpdate(), two.firstUpdate()]);
    await waitUntil(() => server.clients().every((c) => c.types[0]?.ackedVersion === version));
    expect(server.clients().map((c) => [c.nodeId, c.types])).toEqual(
      ['ratelimit-0', 'ratelimit-1']
        .map((id) => [id, [{ typeUrl: RLC, subscription: '*', sentVersion: version, ackedVersion: version }]])
        .sort(),
    );
    await two.close();
    await waitUntil(() => server.clients().length === 1);
    expect(server.clients()[0]?.nodeId).toBe('ratelimit-0');
    expect(events.sort()).toEqual(['connect ratelimit-0', 'connect ratelimit-1', 'disconnect ratelimit-1']);
  });

  it('NACKs a bad payload, keeps the last good config and applies the next good one', async () => {
    const server = await startServer();
    cleanups.push(() => server.close());
    const nacks: Array<SotwServerEvents['nack']> = [];
    server.on('nack', (e) => nacks.push(e));
    const holder = createHolder();
    const v1 = server.setResources(RLC, [config('a', 'web')]);
    const client = startClient({ serverUrl: `127.0.0.1:${server.port}`, onResources: holder.onResources });
    await client.firstUpdate();

    const v2 = server.setResources(RLC, [config('a', 'web'), config('b')]);
    await waitUntil(() => nacks.length === 1);
    expect(nacks[0]).toMatchObject({
      nodeId: 'ratelimit-0',
      version: v2,
      message: 'b: domain: must not be empty',
    });
    expect(server.clients()[0]?.types[0]).toMatchObject({ ackedVersion: v1, lastNack: { version: v2 } });
    expect(holder.domains).toEqual(['web']);

    const v3 = server.setResources(RLC, [config('a', 'web'), config('b', 'api')]);
    await waitUntil(() => server.clients()[0]?.types[0]?.ackedVersion === v3);
    expect(holder.domains).toEqual(['web', 'api']);
    expect(holder.versions).toEqual([v1, v3]);
  });

  it('reconnects after the server restarts on the same port, keeping the last good config meanwhile', async () => {
    const port = await freePort();
    const first = createSotwServer({ host: '127.0.0.1', port, log: quietLog });
    await first.start();
    const v1 = first.setResources(RLC, [config('a', 'web')]);
    const holder = createHolder();
    const client = startClient({ serverUrl: `127.0.0.1:${port}`, onResources: holder.onResources });
    await client.firstUpdate();
    await first.close();
    await waitUntil(() => !client.connected);
    expect(holder.domains).toEqual(['web']);

    const second = createSotwServer({ host: '127.0.0.1', port, log: quietLog });
    cleanups.push(() => second.close());
    const v2 = second.setResources(RLC, [config('a', 'web'), config('b', 'api')]);
    await second.start();
    await waitUntil(() => holder.versions.length === 2);
    expect(holder.versions).toEqual([v1, v2]);
    expect(holder.domains).toEqual(['web', 'api']);
    expect(client.connected).toBe(true);
    await waitUntil(() => second.clients()[0]?.types[0]?.ackedVersion === v2);
  });

  it('firstUpdate rejects when the client closes before any update', async () => {
    const client = startClient({ serverUrl: `127.0.0.1:${await freePort()}` });
    const update = client.firstUpdate();
    await client.close();
    await expect(update).rejects.toBeInstanceOf(XdsClientClosedError);
  });
});
