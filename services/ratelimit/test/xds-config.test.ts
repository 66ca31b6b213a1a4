import { PROTO_FILES, createMessageCodec, toStruct } from '@portcullis/protos';
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
        RESPONSE_DYNAMIC_METADATA: 'true',
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

  it('rebuilds only the domains whose resources changed; the others keep their rule trees', async () => {
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), config('team/b', 'b', 9)]);
    await waitUntil(async () => (await limit('b')) === 9 && (await limit('a')) === 7);
    const before = h.app.service.currentRules();
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), config('team/b', 'b', 10)]);
    await waitUntil(async () => (await limit('b')) === 10);
    const after = h.app.service.currentRules();
    expect(after?.domains.get('a')).toBe(before?.domains.get('a'));
    expect(after?.configs.find((c) => c.domain === 'a')).toBe(before?.configs.find((c) => c.domain === 'a'));
    expect(after?.domains.get('b')).not.toBe(before?.domains.get('b'));
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), config('team/b', 'b', 9)]);
    await waitUntil(async () => (await limit('b')) === 9);
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

  it('takes quota_mode (7) and metadata (8, a google.protobuf.Struct) from the RateLimitConfig message', async () => {
    const quota = {
      name: 'team/q',
      value: codec.encode({
        name: 'team/q',
        domain: 'q',
        descriptors: [
          {
            key: 'qa',
            quotaMode: true,
            rateLimit: { unit: 'HOUR', requestsPerUnit: 1 },
            metadata: toStruct({ service: 'a', weight: 2, tags: ['x', true], none: null }),
          },
          { key: 'qb', quotaMode: true, rateLimit: { unit: 'HOUR', requestsPerUnit: 5 } },
        ],
      }),
    };
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config('team/a', 'a', 7), quota]);
    await waitUntil(async () => (await h.get('/rlconfig', 'debug')).text.includes('q.qa:'));
    expect((await h.get('/rlconfig', 'debug')).text).toContain(
      'q.qa: unit=HOUR requests_per_unit=1, shadow_mode: false, quota_mode: true\n',
    );
    const body = {
      domain: 'q',
      descriptors: [{ entries: [{ key: 'qa', value: 'v' }] }, { entries: [{ key: 'qb', value: 'v' }] }],
    };
    const first = await h.json(body);
    expect((first.body as { dynamicMetadata: { metadata: unknown } }).dynamicMetadata.metadata).toEqual({
      service: 'a',
      weight: 2,
      tags: ['x', true],
      none: null,
    });
    const second = await h.json(body);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      overallCode: 'OK',
      statuses: [{ code: 'OVER_LIMIT' }, { code: 'OK' }],
    });
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
