import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startRedis, type RedisServer } from './redis.js';
import { redisCli } from './redis-cli.js';
import { spawnServer, type ServerProcess } from './server-process.js';
import { waitUntil } from './wait.js';

export interface RedisSentinelSet {
  masterName: string;
  master: RedisServer;
  replica: RedisServer;
  sentinels: ServerProcess[];
  /** `master,host:port,host:port`, the form `KVSTORE_URL` takes with `KVSTORE_TYPE=sentinel`. */
  url: string;
  /** The `host:port` the sentinels currently name as master. */
  currentMaster(): Promise<string>;
  stop(): Promise<void>;
}

const MASTER_NAME = 'portcullis';
const SETTLE_TIMEOUT_MS = 15_000;

/**
 * One master, one replica and two sentinels (quorum 1) on loopback ports, with short failure detection
 * (1 s) so a failover takes a few seconds. Resolves once the replica is in sync and each sentinel knows
 * the replica and the other sentinel, so a failover can be authorised.
 */
export async function startRedisSentinelSet(): Promise<RedisSentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-sentinel-'));
  // replication writes an RDB file: keep it out of the working directory
  const master = await startRedis({ args: ['--dir', dir] });
  const replica = await startRedis({ args: ['--dir', dir, '--replicaof', '127.0.0.1', String(master.port)] });
  const sentinels: ServerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all([...sentinels, master, replica].map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const config = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 1`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 5000`,
          '',
        ].join('\n'),
      );
      sentinels.push(
        await spawnServer({
          command: 'redis-server',
          args: [config, '--sentinel'],
          port,
          probe: { send: 'PING\r\n', ready: (reply) => reply.startsWith('+PONG') },
        }),
      );
    }
    await waitUntil(
      async () => (await redisCli(replica.port, 'INFO', 'replication')).includes('master_link_status:up'),
      SETTLE_TIMEOUT_MS,
    );
    for (const s of sentinels) {
      await waitUntil(async () => {
        const replicas = await redisCli(s.port, 'SENTINEL', 'replicas', MASTER_NAME);
        const peers = await redisCli(s.port, 'SENTINEL', 'sentinels', MASTER_NAME);
        return replicas.includes(String(replica.port)) && peers !== '';
      }, SETTLE_TIMEOUT_MS);
    }
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  const first = sentinels[0] as ServerProcess;
  return {
    masterName: MASTER_NAME,
    master,
    replica,
    sentinels,
    url: [MASTER_NAME, ...sentinels.map((s) => `127.0.0.1:${s.port}`)].join(','),
    async currentMaster() {
      const [host, port] = (
        await redisCli(first.port, 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME)
      ).split('\n');
      return `${host}:${port}`;
    },
    stop,
  };
}
