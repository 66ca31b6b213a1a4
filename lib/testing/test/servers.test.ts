import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startMemcached, withRedis } from '../src/index.js';

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
});
