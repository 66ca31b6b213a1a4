import {
  createCertificates,
  redisCli,
  startRedis,
  startRedisCluster,
  startRedisSentinelSet,
  waitUntil,
} from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const RULES = {
  'a.yaml': [
    'domain: a',
    'descriptors:',
    '  - key: k',
    '    rate_limit: {unit: hour, requests_per_unit: 1000}',
    '  - key: s',
    '    rate_limit: {unit: second, requests_per_unit: 1000}',
    '',
  ].join('\n'),
};
const one = (key: string, value: string) => ({ entries: [{ key, value }] });

async function remaining(h: Harness, ...descriptors: object[]): Promise<number[]> {
  const res = await h.json({ domain: 'a', descriptors });
  expect(res.status).toBe(200);
  return (res.body as { statuses: Array<{ limitRemaining: number }> }).statuses.map((s) => s.limitRemaining);
}

describe('Redis topologies', () => {
  it('counts in a cluster of three masters, the keys of one request on different slots', async () => {
    const cluster = await startRedisCluster();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_TYPE: 'cluster',
      KVSTORE_URL: cluster.url,
      KVSTORE_POOL_SIZE: '2',
      CACHE_KEY_PREFIX: 'pfx:',
    });
    try {
      // twelve unlike values: the chance that all hash to one node's slots is (1/3)^11
      const values = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima'.split(' ');
      const request = values.map((v) => one('k', v));
      expect(await remaining(h, ...request)).toEqual(values.map(() => 999));
      expect(await remaining(h, ...request)).toEqual(values.map(() => 998));
      const keys = Object.fromEntries(
        await Promise.all(
          cluster.nodes.map(async (n) => [n.port, await redisCli(n.port, 'KEYS', 'pfx:a_k_*')] as const),
        ),
      );
      const nodesHoldingKeys = Object.values(keys).filter((k) => k !== '');
      expect(nodesHoldingKeys.length).toBeGreaterThanOrEqual(2);
      expect(Object.values(keys).join('\n').split('\n').sort()).toHaveLength(values.length);
    } finally {
      await h.close();
      await cluster.stop();
    }
  });

  it('follows a sentinel failover while requests flow, and keeps counting on the new master', async () => {
    const set = await startRedisSentinelSet();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_TYPE: 'sentinel',
      KVSTORE_URL: set.url,
      KVSTORE_TIMEOUT: '500ms',
    });
    const statuses: number[] = [];
    let running = true;
    const worker = async (): Promise<void> => {
      while (running) {
        statuses.push((await h.json({ domain: 'a', descriptors: [one('k', 'flow')] })).status);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const workers = [worker(), worker(), worker()];
    try {
      await waitUntil(() => statuses.filter((s) => s === 200).length >= 20);
      await set.master.kill();
      const killedAt = statuses.length;
      await set.waitForFailover();
      await waitUntil(() => statuses.slice(killedAt).filter((s) => s === 200).length >= 20, 20_000);
      running = false;
      await Promise.all(workers);
      expect(new Set(statuses)).toEqual(new Set(statuses.includes(503) ? [200, 503] : [200]));
      const counted = Number(await redisCli(set.replica.port, 'GET', await onlyKey(set.replica.port)));
      // every success after the kill was counted on the promoted replica (earlier ones replicate asynchronously)
      expect(counted).toBeGreaterThanOrEqual(statuses.slice(killedAt).filter((s) => s === 200).length);
      expect(await redisCli(set.replica.port, 'ROLE')).toMatch(/^master/);
    } finally {
      running = false;
      await Promise.all(workers);
      await h.close();
      await set.stop();
    }
  }, 60_000);

  it('sends per-second limits to a second Redis, over TLS with a client certificate', async () => {
    const certs = await createCertificates();
    const main = await startRedis();
    const perSecond = await startRedis({ tls: certs });
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: main.address,
      KVSTORE_PERSECOND: 'true',
      KVSTORE_PERSECOND_URL: perSecond.address,
      KVSTORE_PERSECOND_TLS: 'true',
      KVSTORE_PERSECOND_TLS_CACERT: certs.caCert,
      KVSTORE_PERSECOND_TLS_CLIENT_CERT: certs.clientCert,
      KVSTORE_PERSECOND_TLS_CLIENT_KEY: certs.clientKey,
    });
    const tlsCli = ['--tls', '--cacert', certs.caCert, '--cert', certs.clientCert, '--key', certs.clientKey];
    try {
      expect(await remaining(h, one('s', 'x'), one('k', 'y'))).toEqual([999, 999]);
      expect(await redisCli(main.port, 'KEYS', '*')).toMatch(/^a_k_y_\d+$/);
      expect(await redisCli(perSecond.port, ...tlsCli, 'KEYS', '*')).toMatch(/^a_s_x_\d+$/);
    } finally {
      await h.close();
      await Promise.all([main.stop(), perSecond.stop()]);
    }
  });

  it('is unhealthy while either Redis has no connection, with KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION', async () => {
    const main = await startRedis();
    const perSecond = await startRedis();
    const h = await startHarness(RULES, {
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: main.address,
      KVSTORE_PERSECOND: 'true',
      KVSTORE_PERSECOND_URL: perSecond.address,
      KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
    });
    const health = async (): Promise<number> => (await h.get('/healthcheck')).status;
    try {
      expect(await health()).toBe(200);
      await perSecond.kill();
      await waitUntil(async () => (await health()) === 500);
      const failed = await h.json({ domain: 'a', descriptors: [one('s', 'x')] });
      expect(failed.status).toBe(503);
      expect(await remaining(h, one('k', 'still'))).toEqual([999]);
      const again = await startRedis({ port: perSecond.port });
      try {
        await waitUntil(async () => (await health()) === 200, 10_000);
        expect(await remaining(h, one('s', 'x'))).toEqual([999]);
      } finally {
        await again.stop();
      }
    } finally {
      await h.close();
      await main.stop();
    }
  });
});

async function onlyKey(port: number): Promise<string> {
  const keys = (await redisCli(port, 'KEYS', '*')).split('\n');
  expect(keys).toHaveLength(1);
  return keys[0] ?? '';
}
