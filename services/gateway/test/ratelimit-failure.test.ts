import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

describe('gateway when the rate-limit service is down', () => {
  let xds: SotwServer;
  let deadPort: number;
  beforeAll(async () => {
    deadPort = await freePort();
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/limited',
        value: codec.encode({
          name: 'demo/limited',
          routes: [
            {
              name: 'ping',
              method: 'GET',
              path: 'limited',
              auth: false,
              handler: 'Example.ping',
              rateLimit: {
                requestsPerUnit: 1,
                unit: 'second',
                descriptors: [{ key: 'client', from: 'remoteAddress' }],
              },
            },
          ],
        }),
      },
    ]);
    await xds.start();
  });
  afterAll(() => xds.close());

  it.each([
    ['allow', 200, { message: 'pong' }],
    ['deny', 503, { error: 'rate limit service unavailable', code: 'RATE_LIMIT_UNAVAILABLE' }],
  ])('answers with failure mode %s', async (mode, status, body) => {
    const g: GatewayHarness = await startGatewayHarness({
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${deadPort}`,
      GATEWAY_RATELIMIT_FAILURE_MODE: mode,
      GATEWAY_RATELIMIT_TIMEOUT: '200ms',
    });
    try {
      await waitUntil(async () => (await g.request('GET', '/api/limited')).status !== 404);
      const r = await g.request('GET', '/api/limited');
      expect([r.status, r.body]).toEqual([status, body]);
    } finally {
      await g.close();
    }
  });
});
