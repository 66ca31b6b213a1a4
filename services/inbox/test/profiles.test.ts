import { profilePortProblems, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import { startWorker } from '../src/worker/worker-app.js';
import { quietLog, startInboxHarness } from './harness.js';

describe('inbox /debug/pprof/ on INBOX_DEBUG_PORT, the worker on INBOX_WORKER_DEBUG_PORT', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('is off unless the port is set, and never on the public port', async () => {
    const h = await startInboxHarness();
    try {
      expect(h.app.profilePort).toBeUndefined();
      expect((await h.send('GET', '/debug/pprof/')).status).toBe(404);
    } finally {
      await h.close();
    }
  });

  it('serves a V8 CPU profile and runtime figures on its own port, none on the public port', async () => {
    const h = await startInboxHarness({ INBOX_DEBUG_PORT: '0' });
    try {
      expect(
        await profilePortProblems({ profileUrl: `http://127.0.0.1:${h.app.profilePort}`, publicUrl: h.url }),
      ).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('serves the worker’s on its own port, none on its probes and metrics port', async () => {
    const env = {
      REDIS_URL: `redis://${redis.address}`,
      INBOX_HOST: '127.0.0.1',
      INBOX_WORKER_PORT: '0',
      INBOX_WORKER_NAME: 'profiled',
    };
    const off = await startWorker(loadSettings(env, 'worker'), { log: quietLog });
    const offPort = off.profilePort;
    await off.close();
    expect(offPort).toBeUndefined();
    const worker = await startWorker(loadSettings({ ...env, INBOX_WORKER_DEBUG_PORT: '0' }, 'worker'), {
      log: quietLog,
    });
    try {
      expect(
        await profilePortProblems({
          profileUrl: `http://127.0.0.1:${worker.profilePort}`,
          publicUrl: `http://127.0.0.1:${worker.port}`,
        }),
      ).toEqual([]);
    } finally {
      await worker.close();
    }
  });
});
