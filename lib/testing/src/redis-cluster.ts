import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startRedis, type RedisOptions, type RedisServer } from './redis.js';
import { redisCli } from './redis-cli.js';
import { waitUntil } from './wait.js';

export interface RedisCluster {
  nodes: RedisServer[];
  /** `host:port,host:port,…`, the form `KVSTORE_URL` takes with `KVSTORE_TYPE=cluster`. */
  url: string;
  stop(): Promise<void>;
}

const SETTLE_TIMEOUT_MS = 15_000;

/**
 * A Redis Cluster of `masters` masters (no replicas) on loopback ports, slots spread by
 * `redis-cli --cluster create`, each node also given `args`; resolves once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(
  masters = 3,
  opts: Pick<RedisOptions, 'args'> = {},
): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const nodes: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      // the bus port defaults to port + 10000, past 65535 for a port above 55535 (a fifth of Linux's ephemeral range),
      // where redis-server exits at once: it is chosen free as well
      const busPort = await freePort();
      nodes.push(
        await startRedis({
          port,
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(busPort),
            '--cluster-config-file',
            join(dir, `nodes-${port}.conf`),
            ...(opts.args ?? []),
          ],
        }),
      );
    }
    const first = nodes[0] as RedisServer;
    await redisCli(first.port, '--cluster', 'create', ...nodes.map((n) => n.address), '--cluster-yes');
    for (const n of nodes) {
      await waitUntil(
        async () => (await redisCli(n.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
        SETTLE_TIMEOUT_MS,
      );
    }
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { nodes, url: nodes.map((n) => n.address).join(','), stop };
}
