import { status as GrpcStatus } from '@grpc/grpc-js';
import { EMPTY_VERSION, type SotwServer, type SotwServerEvents } from '@portcullis/xds';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TYPE_A,
  TYPE_B,
  createCollectingLog,
  openRawStream,
  resource,
  startServer,
  texts,
  type RawStream,
} from './harness.js';

describe('SotwServer on the wire', () => {
  let server: SotwServer;
  let raw: RawStream;
  let logLines: Array<Record<string, unknown>>;
  const nacks: Array<SotwServerEvents['nack']> = [];
  const acks: Array<SotwServerEvents['ack']> = [];

  beforeEach(async () => {
    const { log, lines } = createCollectingLog();
    logLines = lines;
    nacks.length = 0;
    acks.length = 0;
    server = await startServer({ log });
    server.on('nack', (e) => nacks.push(e));
    server.on('ack', (e) => acks.push(e));
    raw = openRawStream(server.port);
  });
  afterEach(async () => {
    raw.close();
    await server.close();
  });

  const typeOf = (typeUrl: string) => server.clients()[0]?.types.find((t) => t.typeUrl === typeUrl);

  it('answers a type nobody set at once, with zero resources and the empty version', async () => {
    raw.send({ typeUrl: TYPE_A });
    const resp = await raw.next();
    expect(resp).toMatchObject({ typeUrl: TYPE_A, versionInfo: EMPTY_VERSION });
    expect(resp.resources ?? []).toEqual([]);
    expect(resp.nonce).toMatch(/^\d+$/);
    expect(server.clients()).toEqual([
      {
        streamId: expect.any(Number) as number,
        nodeId: 'raw-node',
        peer: expect.stringContaining('127.0.0.1') as string,
        types: [{ typeUrl: TYPE_A, subscription: '*', sentVersion: EMPTY_VERSION, ackedVersion: '' }],
      },
    ]);
  });

  it('wildcard: all resources in each response, a new version only on a content change, fresh nonces', async () => {
    const v1 = server.setResources(TYPE_A, [resource('a'), resource('b')]);
    raw.send({ typeUrl: TYPE_A });
    const r1 = await raw.next();
    expect(r1).toMatchObject({ typeUrl: TYPE_A, versionInfo: v1 });
    expect(r1.resources?.map((r) => r.type_url)).toEqual([TYPE_A, TYPE_A]);
    expect(texts(r1)).toEqual(['a=a', 'b=b']);

    raw.send({ typeUrl: TYPE_A, versionInfo: v1, responseNonce: r1.nonce! });
    await raw.barrier();
    expect(typeOf(TYPE_A)?.ackedVersion).toBe(v1);
    expect(acks).toMatchObject([{ nodeId: 'raw-node', typeUrl: TYPE_A, version: v1, nonce: r1.nonce }]);

    expect(server.setResources(TYPE_A, [resource('b'), resource('a')])).toBe(v1);
    await raw.barrier();

    const v2 = server.setResources(TYPE_A, [resource('a'), resource('b', 'B'), resource('c')]);
    expect(v2).not.toBe(v1);
    const r2 = await raw.next();
    expect(r2).toMatchObject({ versionInfo: v2 });
    expect(texts(r2)).toEqual(['a=a', 'b=B', 'c=c']);
    expect(r2.nonce).not.toBe(r1.nonce);
  });

  it('ignores a stale nonce and keeps one response outstanding per type, then sends the latest', async () => {
    const v1 = server.setResources(TYPE_A, [resource('a')]);
    raw.send({ typeUrl: TYPE_A });
    const r1 = await raw.next();
    raw.send({ typeUrl: TYPE_A, versionInfo: v1, responseNonce: r1.nonce! });
    const v2 = server.setResources(TYPE_A, [resource('a', '2')]);
    const r2 = await raw.next();
    expect(r2.versionInfo).toBe(v2);

    // a NACK quoting the older nonce is stale: not recorded, not answered
    raw.send({
      typeUrl: TYPE_A,
      versionInfo: v1,
      responseNonce: r1.nonce!,
      errorDetail: { message: 'late' },
    });
    await raw.barrier();
    expect(typeOf(TYPE_A)).toMatchObject({ sentVersion: v2, ackedVersion: v1 });
    expect(typeOf(TYPE_A)?.lastNack).toBeUndefined();
    expect(nacks).toEqual([]);

    // v2 is unanswered, so v3 waits for the ACK instead of piling up
    const v3 = server.setResources(TYPE_A, [resource('a', '3')]);
    await raw.barrier();
    raw.send({ typeUrl: TYPE_A, versionInfo: v2, responseNonce: r2.nonce! });
    const r3 = await raw.next();
    expect(r3).toMatchObject({ versionInfo: v3 });
    expect(texts(r3)).toEqual(['a=3']);
    expect(new Set([r1.nonce, r2.nonce, r3.nonce]).size).toBe(3);
  });

  it('records a NACK with the node id, never resends that version, sends the next good one', async () => {
    const v1 = server.setResources(TYPE_A, [resource('a')]);
    raw.send({ typeUrl: TYPE_A });
    const r1 = await raw.next();
    raw.send({
      typeUrl: TYPE_A,
      versionInfo: '',
      responseNonce: r1.nonce!,
      errorDetail: { code: GrpcStatus.INVALID_ARGUMENT, message: 'a: bad' },
    });
    await raw.barrier();
    const nack = { version: v1, nonce: r1.nonce, message: 'a: bad', code: GrpcStatus.INVALID_ARGUMENT };
    expect(nacks).toMatchObject([{ nodeId: 'raw-node', typeUrl: TYPE_A, ...nack }]);
    expect(typeOf(TYPE_A)).toMatchObject({ ackedVersion: '', lastNack: nack });
    expect(logLines.find((l) => l['@message'] === 'xDS NACK')).toMatchObject({
      level: 'warn',
      component: 'xds-server',
      nodeId: 'raw-node',
      typeUrl: TYPE_A,
      version: v1,
      nonce: r1.nonce,
      error: 'a: bad',
    });

    // asking again with the same nonce, or setting the same content, does not bring v1 back
    raw.send({ typeUrl: TYPE_A, versionInfo: '', responseNonce: r1.nonce! });
    server.setResources(TYPE_A, [resource('a')]);
    await raw.barrier();

    const v2 = server.setResources(TYPE_A, [resource('a', 'fixed')]);
    const r2 = await raw.next();
    expect(r2).toMatchObject({ versionInfo: v2 });
    raw.send({ typeUrl: TYPE_A, versionInfo: v2, responseNonce: r2.nonce! });
    await raw.barrier();
    expect(typeOf(TYPE_A)?.ackedVersion).toBe(v2);

    // the rejected content coming back is the rejected version again: not for this client
    expect(server.setResources(TYPE_A, [resource('a')])).toBe(v1);
    await raw.barrier();
    expect(typeOf(TYPE_A)?.sentVersion).toBe(v2);
  });

  it('named subscription: only the named resources, all of them in every response', async () => {
    const v1 = server.setResources(TYPE_A, [resource('a'), resource('b'), resource('c')]);
    raw.send({ typeUrl: TYPE_A, resourceNames: ['a', 'z'] });
    const r1 = await raw.next();
    expect(texts(r1)).toEqual(['a=a']);
    raw.send({ typeUrl: TYPE_A, versionInfo: v1, responseNonce: r1.nonce!, resourceNames: ['a', 'z'] });

    // z appears: sent with a, not with b or c
    const v2 = server.setResources(TYPE_A, [resource('a'), resource('b'), resource('c'), resource('z')]);
    const r2 = await raw.next();
    expect(r2.versionInfo).toBe(v2);
    expect(texts(r2)).toEqual(['a=a', 'z=z']);

    // a newly named resource is sent at once, at the same version
    raw.send({ typeUrl: TYPE_A, versionInfo: v2, responseNonce: r2.nonce!, resourceNames: ['a', 'b', 'z'] });
    const r3 = await raw.next();
    expect(r3.versionInfo).toBe(v2);
    expect(texts(r3)).toEqual(['a=a', 'b=b', 'z=z']);

    // dropping names needs no response
    raw.send({ typeUrl: TYPE_A, versionInfo: v2, responseNonce: r3.nonce!, resourceNames: ['b'] });
    await raw.barrier();
    expect(typeOf(TYPE_A)?.subscription).toEqual(['b']);
  });

  it('multiplexes two types on one stream, each with its own version and nonce', async () => {
    const vA = server.setResources(TYPE_A, [resource('a')]);
    const vB = server.setResources(TYPE_B, [resource('b')]);
    raw.send({ typeUrl: TYPE_A });
    raw.send({ typeUrl: TYPE_B });
    const [rA, rB] = [await raw.next(), await raw.next()];
    expect(rA).toMatchObject({ typeUrl: TYPE_A, versionInfo: vA });
    expect(rB).toMatchObject({ typeUrl: TYPE_B, versionInfo: vB });
    expect(rA.nonce).not.toBe(rB.nonce);
    raw.send({ typeUrl: TYPE_A, versionInfo: vA, responseNonce: rA.nonce! });
    raw.send({ typeUrl: TYPE_B, versionInfo: vB, responseNonce: rB.nonce! });

    const vB2 = server.setResources(TYPE_B, [resource('b', '2')]);
    expect(await raw.next()).toMatchObject({ typeUrl: TYPE_B, versionInfo: vB2 });
    await raw.barrier();
    expect(typeOf(TYPE_A)).toMatchObject({ sentVersion: vA, ackedVersion: vA });
    expect(typeOf(TYPE_B)).toMatchObject({ sentVersion: vB2, ackedVersion: vB });
  });

  it('answers a reconnecting client carrying an old version and nonce with the current snapshot', async () => {
    const v1 = server.setResources(TYPE_A, [resource('a')]);
    raw.send({ typeUrl: TYPE_A, versionInfo: 'from-before', responseNonce: '4711' });
    expect(await raw.next()).toMatchObject({ versionInfo: v1 });
    expect(typeOf(TYPE_A)?.ackedVersion).toBe('from-before');
  });

  it('refuses a stream whose first request carries no node', async () => {
    const bare = openRawStream(server.port, { node: null });
    bare.send({ typeUrl: TYPE_A });
    expect(await bare.status).toMatchObject({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'the first DiscoveryRequest of a stream must carry node',
    });
    bare.close();
  });

  it('close() ends open streams with UNAVAILABLE, so the shutdown completes without forcing', async () => {
    raw.send({ typeUrl: TYPE_A });
    await raw.next();
    await server.close();
    expect(logLines.map((l) => l['@message'])).not.toContain('xDS server forced to shut down');
    expect(await raw.status).toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
      details: 'xDS server shutting down',
    });
    expect(server.clients()).toEqual([]);
  });
});
