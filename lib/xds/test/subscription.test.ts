import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  XdsClientClosedError,
  createXdsSubscription,
  type SotwServerEvents,
  type XdsSubscription,
  type XdsSubscriptionOptions,
} from '@portcullis/xds';
import { freePort, waitUntil } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createCollectingLog, quietLog, startServer } from './harness.js';

interface RateLimitConfig {
  name: string;
  domain?: string;
}
const codec = createMessageCodec<RateLimitConfig>(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);
const config = (name: string, domain?: string) => ({ name, value: codec.encode({ name, domain }) });

const subscriptions: XdsSubscription[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of subscriptions.splice(0)) await s.close();
  for (const f of cleanups.splice(0)) await f();
});

/** Domains in force, swapped whole: decoding refuses an empty domain, applying refuses `down`. */
function subscribe(
  serverUrl: string,
  opts: Partial<XdsSubscriptionOptions<string[]>> = {},
): { subscription: XdsSubscription; inForce: string[][] } {
  const inForce: string[][] = [];
  const subscription = createXdsSubscription<string[]>({
    serverUrl,
    nodeId: 'gateway-0',
    retryIntervalMs: 100,
    log: quietLog,
    typeUrl: codec.typeUrl,
    decode: (resources) =>
      resources.map((r) => {
        const c = codec.decode(r.value);
        if (!c.domain) throw new Error(`${c.name}: domain: must not be empty`);
        return c.domain;
      }),
    apply: (domains) => {
      if (domains.includes('down')) return Promise.reject(new Error('store unavailable'));
      inForce.push(domains);
      return Promise.resolve();
    },
    describe: (domains) => ({ domains: domains.length }),
    ...opts,
  });
  subscriptions.push(subscription);
  subscription.start();
  return { subscription, inForce };
}

describe('createXdsSubscription', () => {
  it('decodes and applies each update; a refused one is NACKed with its message and the last good stays', async () => {
    const server = await startServer();
    cleanups.push(() => server.close());
    const nacks: Array<SotwServerEvents['nack']> = [];
    server.on('nack', (e) => nacks.push(e));
    const { log, lines } = createCollectingLog();
    const v1 = server.setResources(codec.typeUrl, [config('a', 'web')]);
    const { subscription, inForce } = subscribe(`127.0.0.1:${server.port}`, { log });
    expect(subscription.applied).toBe(false);
    await subscription.firstUpdate();
    expect(subscription.applied).toBe(true);
    expect(inForce).toEqual([['web']]);
    expect(lines.find((l) => l['@message'] === 'xDS config applied')).toMatchObject({
      component: 'xds-client',
      version: v1,
      domains: 1,
    });

    const v2 = server.setResources(codec.typeUrl, [config('a', 'web'), config('b')]);
    await waitUntil(() => nacks.length === 1);
    expect(nacks[0]).toMatchObject({ version: v2, message: 'b: domain: must not be empty' });
    const v3 = server.setResources(codec.typeUrl, [config('a', 'down')]);
    await waitUntil(() => nacks.length === 2);
    expect(nacks[1]).toMatchObject({ version: v3, message: 'store unavailable' });
    expect(lines.filter((l) => l['@message'] === 'xDS config rejected').map((l) => l.error)).toEqual([
      'b: domain: must not be empty',
      'store unavailable',
    ]);
    expect(inForce).toEqual([['web']]);

    const v4 = server.setResources(codec.typeUrl, [config('a', 'web'), config('b', 'api')]);
    await waitUntil(() => server.clients()[0]?.types[0]?.ackedVersion === v4);
    expect(inForce).toEqual([['web'], ['web', 'api']]);
  });

  it('is not applied until a good config comes: a refused first one leaves firstUpdate waiting', async () => {
    const server = await startServer();
    cleanups.push(() => server.close());
    server.setResources(codec.typeUrl, [config('a')]);
    const { subscription } = subscribe(`127.0.0.1:${server.port}`);
    let settled = false;
    void subscription.firstUpdate().then(() => (settled = true));
    await waitUntil(() => server.clients()[0]?.types[0]?.lastNack !== undefined);
    expect([settled, subscription.applied]).toEqual([false, false]);
    server.setResources(codec.typeUrl, [config('a', 'web')]);
    await subscription.firstUpdate();
    expect(subscription.applied).toBe(true);
    expect(subscription.connected).toBe(true);
  });

  it('rejects firstUpdate when closed before any config', async () => {
    const { subscription } = subscribe(`127.0.0.1:${await freePort()}`);
    const first = subscription.firstUpdate();
    await subscription.close();
    await expect(first).rejects.toBeInstanceOf(XdsClientClosedError);
    expect(subscription.applied).toBe(false);
  });
});
