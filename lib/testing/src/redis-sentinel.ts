import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startRedis, type RedisOptions, type RedisServer } from './redis.js';
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
  /**
   * Resolves once the sentinels name the replica as master (after `master.kill()`); the error of a failover
   * that does not come says what each sentinel sees.
   */
  waitForFailover(): Promise<void>;
  stop(): Promise<void>;
}

const MASTER_NAME = 'portcullis';
const SETTLE_TIMEOUT_MS = 15_000;
/**
 * Each sentinel's down-after-milliseconds. A leader needs the votes of both; two sentinels that see the
 * master down at the same moment each vote for themselves, and neither may try again before twice the
 * failover timeout. The first sees it down seconds before the second, asks for its vote and gets it.
 */
const DOWN_AFTER_MS = [1000, 4000] as const;
const FAILOVER_TIMEOUT_MS = 5000;
/**
 * Detection, then room for a first attempt that fails and its retry: an attempt is given up after the
 * failover timeout, and the next begins twice the failover timeout after the failed one began.
 */
const FAILOVER_BOUND_MS = DOWN_AFTER_MS[0] + 3 * FAILOVER_TIMEOUT_MS;

/**
 * One master, one replica and two sentinels (quorum 1) on loopback ports, with short failure detection
 * (1 s) so a failover takes a few seconds. Resolves once the replica is in sync and each sentinel knows
 * the replica and the other sentinel, so a failover can be authorised. `args` go to the master and the replica.
 */
export async function startRedisSentinelSet(
  opts: Pick<RedisOptions, 'args'> = {},
): Promise<RedisSentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-sentinel-'));
  // replication writes an RDB file: keep it out of the working directory
  const args = ['--dir', dir, ...(opts.args ?? [])];
  const master = await startRedis({ args });
  const replica = await startRedis({ args: [...args, '--replicaof', '127.0.0.1', String(master.port)] });
  const sentinels: ServerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all([...sentinels, master, replica].map((s) => s.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const downAfterMs of DOWN_AFTER_MS) {
      const port = await freePort();
      const config = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master.port} 1`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${downAfterMs}`,
          `sentinel failover-timeout ${MASTER_NAME} ${FAILOVER_TIMEOUT_MS}`,
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
  const currentMaster = async (): Promise<string> => {
    const [host, port] = (
      await redisCli(first.port, 'SENTINEL', 'get-master-addr-by-name', MASTER_NAME)
    ).split('\n');
    return `${host}:${port}`;
  };
  return {
    masterName: MASTER_NAME,
    master,
    replica,
    sentinels,
    url: [MASTER_NAME, ...sentinels.map((s) => `127.0.0.1:${s.port}`)].join(','),
    currentMaster,
    async waitForFailover() {
      try {
        await waitUntil(async () => (await currentMaster()) === replica.address, FAILOVER_BOUND_MS);
      } catch {
        const views = await Promise.all(sentinels.map((s) => describeSentinel(s.port)));
        throw new Error(
          `the sentinels did not promote the replica ${replica.address} within ${FAILOVER_BOUND_MS} ms\n${views.join('\n')}`,
        );
      }
    },
    stop,
  };
}

/** What one sentinel makes of the master and its replicas: flags, epochs, links. */
async function describeSentinel(port: number): Promise<string> {
  const fields = ['ip', 'port', 'flags', 'config-epoch', 'last-ok-ping-reply', 'master-link-status'];
  const pick = (reply: string): string => {
    const lines = reply.split('\n');
    return lines
      .flatMap((key, i) => (i % 2 === 0 && fields.includes(key) ? [`${key}=${lines[i + 1] ?? ''}`] : []))
      .join(' ');
  };
  const master = await redisCli(port, 'SENTINEL', 'master', MASTER_NAME);
  const replicas = await redisCli(port, 'SENTINEL', 'replicas', MASTER_NAME);
  const info = await redisCli(port, 'INFO', 'sentinel');
  const tilt = /sentinel_tilt:(\d)/.exec(info)?.[1] ?? '?';
  return `sentinel ${port} (tilt ${tilt}): master ${pick(master)}; replica ${pick(replicas)}`;
}
