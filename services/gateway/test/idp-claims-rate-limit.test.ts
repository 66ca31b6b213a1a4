import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, startRateLimitProcess, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from './jwks-server.js';

const ISSUER = 'https://idp.test';
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const RULES = {
  'gateway.yaml': [
    'domain: gateway',
    'descriptors:',
    '  - key: route',
    '    value: demo/tenants/limited',
    '    descriptors:',
    '      - key: tenant',
    '        rate_limit: {unit: hour, requests_per_unit: 2}',
    '',
  ].join('\n'),
};

/** An ApiRoute limited per `tenant` claim, asked of a real ratelimit process, with tokens of an identity provider. */
describe("gateway jwt: an identity provider's claims key rate limits", () => {
  let jwks: JwksServer;
  let key: SigningKey;
  let rls: Awaited<ReturnType<typeof startRateLimitProcess>>;
  let xds: SotwServer;
  let g: GatewayHarness;

  beforeAll(async () => {
    key = await createSigningKey('ES256', 'ec-1');
    jwks = await startJwksServer();
    jwks.publish('/jwks', [key]);
    rls = await startRateLimitProcess(RULES);
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/tenants',
        value: codec.encode({
          name: 'demo/tenants',
          routes: [
            {
              name: 'limited',
              method: 'GET',
              path: 'limited',
              auth: true,
              handler: 'Example.ping',
              rateLimit: {
                requestsPerUnit: 2,
                unit: 'hour',
                descriptors: [{ key: 'tenant', from: 'claim', name: 'tenant' }],
              },
            },
          ],
        }),
      },
    ]);
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_JWT_ISSUERS: JSON.stringify([
        { issuer: ISSUER, jwksUrl: jwks.url('/jwks'), audience: 'api', algorithms: ['ES256'] },
      ]),
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.ports.grpc}`,
    });
  }, 60_000);
  afterAll(async () => {
    await g.close();
    await xds.close();
    await rls.stop();
    await jwks.close();
  });

  const token = (sub: string, tenant: string): Promise<string> =>
    signToken(key, { iss: ISSUER, aud: 'api', sub, tenant, exp: Math.floor(Date.now() / 1000) + 3600 });
  const call = async (t: string) =>
    g.request('GET', '/api/limited', { headers: { authorization: `Bearer ${t}` } });

  it('counts requests per tenant claim across users, and not across tenants', async () => {
    // the service answers once the gateway's client is connected: RateLimit-* headers show it was asked
    const probe = await token('probe', 'probe-tenant');
    await waitUntil(async () => (await call(probe)).headers.get('ratelimit-limit') !== null, 20_000);
    const acme = [await token('ann', 'acme'), await token('bob', 'acme'), await token('cy', 'acme')];
    const statuses = [];
    for (const t of acme) statuses.push((await call(t)).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await call(await token('dee', 'globex'))).status).toBe(200);
  });
});
