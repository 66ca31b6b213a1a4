import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  redisCli,
  startMemcached,
  startRedisCluster,
  startRedisSentinelSet,
  withRedis,
} from '../src/index.js';

function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(command));
    socket.once('data', (d: Buffer) => {
      socket.destroy();
      resolve(d.toString());
    });
    socket.once('error', reject);
  });
}

describe('server fixtures', () => {
  it('withRedis starts a real redis-server and stops it afterwards', async () => {
    const port = await withRedis(async (redis) => {
      expect(await ask(redis.port, 'PING\r\n')).toBe('+PONG\r\n');
      return redis.port;
    });
    await expect(ask(port, 'PING\r\n')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('startMemcached starts a real memcached', async () => {
    const mc = await startMemcached();
    try {
      expect(await ask(mc.port, 'version\r\n')).toMatch(/^VERSION \d/);
    } finally {
      await mc.stop();
    }
  });

  it('startRedisSentinelSet starts a master, a replica and two sentinels that agree on the master', async () => {
    const set = await startRedisSentinelSet();
    try {
      expect(await set.currentMaster()).toBe(set.master.address);
      expect(set.url).toBe(`${set.masterName},${set.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}`);
      expect(await redisCli(set.replica.port, 'INFO', 'replication')).toContain('role:slave');
    } finally {
      await set.stop();
    }
  });

  it('startRedisCluster starts three masters sharing every slot', async () => {
    const cluster = await startRedisCluster();
    try {
      const info = await redisCli(cluster.nodes[0]?.port ?? 0, 'CLUSTER', 'INFO');
      expect(info).toContain('cluster_slots_assigned:16384');
      expect(info).toContain('cluster_known_nodes:3');
    } finally {
      await cluster.stop();
    }
  });
});
