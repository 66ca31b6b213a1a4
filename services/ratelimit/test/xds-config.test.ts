import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer, type SotwServerEvents } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_CONFIG_TYPE } from '../src/config/xds-source.js';
import { quietLog, startHarness, type Harness } from './harness.js';

const codec = createMessageCodec(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);

const config = (name: string, domain: string, requestsPerUnit: number) => ({
  name,
  value: codec.encode({
    name,
    domain,
    descriptors: [{ key: 'k', rateLimit: { unit: 'MINUTE', requestsPerUnit } }],
  }),
});

describe('ratelimit with CONFIG_TYPE=GRPC_XDS_SOTW', () => {
  let xds: SotwServer;
  let h: Harness;
  const nacks: Array<SotwServerEvents['nack']> = [];

  const limit = async (domain: string): Promise<number | undefined> => {
    const r = await h.json({
      domain,
      descriptors: [{ entries: [{ key: 'k', value: String(Math.random()) }] }],
    });
    return (r.body as { statuses: Array<{ currentLimit?: { requestsPerUnit: number } }> }).statuses[0]
      ?.currentLimit?.requestsPerUnit;
  };

  beforeAll(async () => {
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.on('nack', (e) => nacks.push(e));
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 5)]);
    await xds.start();
    h = await startHarness(
      {},
      {
        CONFIG_TYPE: 'GRPC_XDS_SOTW',
        CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
        CONFIG_GRPC_XDS_NODE_ID: 'rl-test',
        CONFIG_GRPC_XDS_NODE_METADATA: 'zone=a,tier=gold',
        CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '100ms',
      },
    );
  });
  afterAll(async () => {
    await h.close();
    await xds.close();
  });

  it('serves the configuration pushed by the management server and follows new versions', async () => {
    expect(await limit('a')).toBe(5);
    expect(xds.clients().map((c) => c.nodeId)).toEqual(['rl-test']);
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), config('team/b', 'b', 9)]);
    await waitUntil(async () => (await limit('b')) === 9);
    expect(await limit('a')).toBe(7);
    expect((await h.get('/rlconfig', 'debug')).text).toContain('b.k: unit=MINUTE requests_per_unit=9');
  });

  it('NACKs an invalid configuration with the problems, keeps the last good one and counts the error', async () => {
    const errors = h.app.stats.counter('config_load_error').value;
    const bad = {
      name: 'team/c',
      value: codec.encode({
        name: 'team/c',
        domain: 'c',
        descriptors: [{ key: 'k', rateLimit: { requestsPerUnit: 1 } }],
      }),
    };
    const version = xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), bad]);
    await waitUntil(() => nacks.some((n) => n.version === version));
    expect(nacks.find((n) => n.version === version)?.message).toBe(
      'team/c: descriptors[0].rate_limit.unit: rate limit unit is required unless unlimited is true (one of second, minute, hour, day, week, month, year)',
    );
    expect(h.app.stats.counter('config_load_error').value).toBe(errors + 1);
    expect(await limit('b')).toBe(9);
  });

  it('rejects two resources for one domain, as two files would be', async () => {
    const version = xds.setResources(RATE_LIMIT_CONFIG_TYPE, [
      config('team/x', 'dup', 1),
      config('team/y', 'dup', 2),
    ]);
    await waitUntil(() => nacks.some((n) => n.version === version));
    expect(nacks.find((n) => n.version === version)?.message).toBe(
      "team/y: duplicate domain 'dup' in config file (also in team/x)",
    );
  });
});
