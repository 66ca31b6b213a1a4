import { redisCli, startRedisCluster, waitUntil, type RedisCluster } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntimeRoot, startHarness } from './harness.js';

const RULES = {
  'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1000}\n',
};
const NOW_MS = 1_800_000_000_000;
const WINDOW = 1_800_000_000;

/** The node serving `key`: the others answer `MOVED`. */
async function ownerOf(cluster: RedisCluster, key: string): Promise<number> {
  for (const n of cluster.nodes) {
    const reply = await redisCli(n.port, 'GET', key).catch(
      (e: unknown) => (e as { stdout?: string }).stdout ?? 'MOVED',
    );
    if (!reply.includes('MOVED')) return n.port;
  }
  throw new Error(`no node serves ${key}`);
}

/** Two values whose counter keys (under `prefix`) live on different nodes, with those nodes' ports. */
async function valuesOnTwoNodes(cluster: RedisCluster, prefix: string) {
  const first = { value: 'v0', port: await ownerOf(cluster, `${prefix}a_k_v0_${WINDOW}`) };
  for (let i = 1; i < 50; i++) {
    const port = await ownerOf(cluster, `${prefix}a_k_v${i}_${WINDOW}`);
    if (port !== first.port) return [first, { value: `v${i}`, port }] as const;
  }
  throw new Error('every value hashed to one node');
}

const blockedClients = async (port: number): Promise<number> =>
  Number(/blocked_clients:(\d+)/.exec(await redisCli(port, 'INFO', 'clients'))?.[1] ?? 0);

/**
 * One request for keys A and B on different nodes while A's node holds writes (`CLIENT PAUSE … WRITE`):
 * A's commands arrive and wait; what B's node holds then says whether B's group left with A's or after it.
 */
async function countWhileFirstNodeHeld(cluster: RedisCluster, parallelism: string) {
  const prefix = `p${parallelism}:`;
  const [a, b] = await valuesOnTwoNodes(cluster, prefix);
  const h = await startHarness(
    RULES,
    {
      BACKEND_TYPE: 'redis',
      KVSTORE_TYPE: 'cluster',
      KVSTORE_URL: cluster.url,
      CACHE_KEY_PREFIX: prefix,
      REDIS_CLUSTER_PIPELINE_PARALLELISM: parallelism,
    },
    { ...(await createRuntimeRoot(RULES)), now: () => NOW_MS },
  );
  const keyB = `${prefix}a_k_${b.value}_${WINDOW}`;
  try {
    await redisCli(a.port, 'CLIENT', 'PAUSE', '30000', 'WRITE');
    const answer = h.json({
      domain: 'a',
      descriptors: [a, b].map(({ value }) => ({ entries: [{ key: 'k', value }] })),
    });
    await waitUntil(async () => (await blockedClients(a.port)) > 0);
    const read = () => redisCli(b.port, 'GET', keyB);
    // all at once: B's increment lands while A's waits; one after another: B's has not left yet
    if (parallelism === '0') await waitUntil(async () => (await read()) === '1');
    const whileHeld = await read();
    expect(await blockedClients(a.port)).toBeGreaterThan(0);
    await redisCli(a.port, 'CLIENT', 'UNPAUSE');
    const res = await answer;
    return { whileHeld, after: await read(), res };
  } finally {
    await redisCli(a.port, 'CLIENT', 'UNPAUSE');
    await h.close();
  }
}

describe('KVSTORE_CLUSTER_PIPELINE_PARALLELISM on a Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(() => cluster.stop());

  it('1 (upstream’s default): the second key leaves only once the first answered', async () => {
    const { whileHeld, after, res } = await countWhileFirstNodeHeld(cluster, '1');
    expect(whileHeld).toBe('');
    expect(after).toBe('1');
    expect(res.body).toMatchObject({ statuses: [{ limitRemaining: 999 }, { limitRemaining: 999 }] });
  });

  it('0 (ours): every key of the request is in flight at once', async () => {
    const { whileHeld, res } = await countWhileFirstNodeHeld(cluster, '0');
    expect(whileHeld).toBe('1');
    expect(res.body).toMatchObject({ statuses: [{ limitRemaining: 999 }, { limitRemaining: 999 }] });
  });
});
