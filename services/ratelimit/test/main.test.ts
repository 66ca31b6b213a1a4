import { rm } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { rateLimitHealth, runRateLimit, startRedis, waitUntil } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRlsClient } from './harness.js';
import { startService } from './service-process.js';

describe('the ratelimit process', () => {
  it('stops start-up naming every bad variable', async () => {
    const p = runRateLimit({ GRPC_PORT: 'eighty', KVSTORE_POOL_SIZE: '0', LOG_FORMAT: 'json' });
    expect(await p.exited).toBe(1);
    const line = JSON.parse(p.output().trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'fatal',
      '@message': 'invalid settings',
      problems: [
        'GRPC_PORT="eighty": expected an integer ≥ 0 ≤ 65535',
        'KVSTORE_POOL_SIZE="0": expected an integer ≥ 1 ≤ 1024',
      ],
    });
  });

  it('serves and exits cleanly on SIGTERM', async () => {
    const p = await startService({});
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/msg="shutting down" signal=SIGTERM/);
    await rm(p.root, { recursive: true, force: true });
  });

  it.each(['1', '2'])(
    'on SIGTERM fails /healthcheck at once, drains the decision in flight, then exits (RATELIMIT_WORKERS=%s)',
    async (workers) => {
      const redis = await startRedis();
      const admin = new Redis(redis.port, '127.0.0.1');
      const p = await startService({
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        RATELIMIT_WORKERS: workers,
      });
      const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
      try {
        // Redis holds every write, so the decision stays in flight until UNPAUSE
        await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
        let settled = false;
        const decision = rls
          .shouldRateLimit({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] })
          .finally(() => (settled = true));
        await waitUntil(async () => (await admin.info('clients')).includes('blocked_clients:1'));

        p.child.kill('SIGTERM');
        await waitUntil(async () => (await rateLimitHealth(p.ports.http)) === 500);
        expect(p.child.exitCode).toBeNull();
        expect(settled).toBe(false);

        await admin.call('CLIENT', 'UNPAUSE');
        expect(await decision).toMatchObject({ overallCode: 'OK', statuses: [{ limitRemaining: 4 }] });
        expect(await p.exited).toBe(0);
      } finally {
        rls.close();
        p.child.kill('SIGKILL');
        admin.disconnect();
        await redis.stop();
        await rm(p.root, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
