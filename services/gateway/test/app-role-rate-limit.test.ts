import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, startRateLimitProcess, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
// the shape the operator generates: route, then one key-only level per descriptor
const RULES = {
  'gateway.yaml': [
    'domain: gateway',
    'descriptors:',
    '  - key: route',
    '    value: demo/quotas/per-app',
    '    descriptors:',
    '      - key: application',
    '        rate_limit: {unit: hour, requests_per_unit: 2}',
    '  - key: route',
    '    value: demo/quotas/per-role',
    '    descriptors:',
    '      - key: tier',
    '        rate_limit: {unit: hour, requests_per_unit: 2}',
    '',
  ].join('\n'),
};

const limited = (name: string, from: string, key: string, roles: string[]) => ({
  name,
  method: 'GET',
  path: name,
  auth: true,
  roles,
  handler: 'Example.ping',
  rateLimit: { requestsPerUnit: 2, unit: 'hour', descriptors: [{ key, from }] },
});

/** `from: app` and `from: role` descriptors, asked of a real ratelimit process, with API keys as callers. */
describe('gateway rate limits per application and per role', () => {
  let rls: Awaited<ReturnType<typeof startRateLimitProcess>>;
  let xds: SotwServer;
  let g: GatewayHarness;

  beforeAll(async () => {
    rls = await startRateLimitProcess(RULES);
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/quotas',
        value: codec.encode({
          name: 'demo/quotas',
          routes: [
            limited('per-app', 'app', 'application', []),
            limited('per-role', 'role', 'tier', ['gold', 'silver']),
          ],
        }),
      },
    ]);
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.ports.grpc}`,
    });
  }, 60_000);
  afterAll(async () => {
    await g.close();
    await xds.close();
    await rls.stop();
  });

  async function keysOf(name: string, roles: string[], count = 1): Promise<string[]> {
    const app = await g.app.apps.createApp({ name, roles });
    const keys = [];
    for (let i = 0; i < count; i++) {
      const created = await g.app.apps.createKey(app.id, { name: `key-${i}` });
      if (!created) throw new Error('no application');
      keys.push(created.key);
    }
    return keys;
  }
  const call = (path: string, key: string) =>
    g.request('GET', `/api/${path}`, { headers: { 'x-api-key': key } });
  const statuses = async (path: string, keys: string[]) => {
    const seen = [];
    for (const key of keys) seen.push((await call(path, key)).status);
    return seen;
  };

  it('counts one budget per application, whichever of its keys is sent', async () => {
    // the service answers once the gateway's client is connected: RateLimit-* headers show it was asked
    const [probe = ''] = await keysOf('probe', []);
    await waitUntil(
      async () => (await call('per-app', probe)).headers.get('ratelimit-limit') !== null,
      20_000,
    );
    const [first = '', second = ''] = await keysOf('shop', [], 2);
    const [other = ''] = await keysOf('warehouse', []);
    expect(await statuses('per-app', [first, second, first])).toEqual([200, 200, 429]);
    expect(await statuses('per-app', [other])).toEqual([200]);
  });

  it("counts per role: the first of the route's roles the caller holds, in the route's order", async () => {
    // holds both, listed silver first: counted as gold, the route's first
    const [both = ''] = await keysOf('both', ['silver', 'gold']);
    const [gold = ''] = await keysOf('gold-only', ['gold']);
    const [silver = ''] = await keysOf('silver-only', ['silver']);
    expect(await statuses('per-role', [both, gold, both])).toEqual([200, 200, 429]);
    expect(await statuses('per-role', [silver])).toEqual([200]);
  });
});
