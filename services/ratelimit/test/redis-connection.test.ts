import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

const files = {
  'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
};
const body = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };

async function decide(env: Record<string, string>): Promise<number> {
  const h = await startHarness(files, { BACKEND_TYPE: 'redis', ...env });
  try {
    return (await h.json(body)).status;
  } finally {
    await h.close();
  }
}

describe('Redis connection settings', () => {
  it('connects over a unix socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'redis-sock-'));
    const socket = join(dir, 'redis.sock');
    const redis = await startRedis({ args: ['--unixsocket', socket, '--unixsocketperm', '700'] });
    try {
      expect(await decide({ KVSTORE_URL: socket })).toBe(200);
      expect(await decide({ REDIS_SOCKET_TYPE: 'unix', REDIS_URL: socket })).toBe(200);
    } finally {
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('authenticates with a password, or a user and password', async () => {
    const redis = await startRedis({
      args: ['--requirepass', 'sesame', '--user', 'alice', 'on', '>wonderland', '~*', '&*', '+@all'],
    });
    try {
      expect(await decide({ KVSTORE_URL: redis.address, KVSTORE_AUTH: 'sesame' })).toBe(200);
      expect(await decide({ KVSTORE_URL: redis.address, REDIS_AUTH: 'alice:wonderland' })).toBe(200);
    } finally {
      await redis.stop();
    }
  });
});
