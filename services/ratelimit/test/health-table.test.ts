import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startRedis, waitUntil } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRuntimeRoot, startHarness, type Harness } from './harness.js';

// The rows of the spec's health table that the other tests do not cover (termination: main.test.ts;
// the key-value store with KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION=true: startup.test.ts).

const healthOf = async (h: Harness): Promise<number> => (await h.get('/healthcheck')).status;

describe('the health table', () => {
  it('key-value store: without KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION a lost connection keeps the service healthy', async () => {
    const redis = await startRedis();
    const h = await startHarness(
      {
        'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 9}\n',
      },
      { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address, KVSTORE_TIMEOUT: '500ms' },
    );
    try {
      await redis.kill();
      const body = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };
      await waitUntil(async () => (await h.json(body)).status === 503);
      expect(await healthOf(h)).toBe(200);
      expect(h.app.health.snapshot()).toEqual({ sigterm: true, kvstore: true });
    } finally {
      await h.close();
    }
  });

  it('configuration: with HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED, unhealthy until a domain loads and again when none is left', async () => {
    const at = await createRuntimeRoot({});
    const h = await startHarness(
      {},
      { HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED: 'true', FORCE_START_WITHOUT_INITIAL_CONFIG: 'true' },
      at,
    );
    try {
      expect(await healthOf(h)).toBe(500);
      // the kit's probes over the same components: not ready naming config, live all along
      const readyz = await h.get('/readyz');
      expect([readyz.status, JSON.parse(readyz.text)]).toEqual([
        503,
        { error: 'not ready: config', code: 'NOT_READY' },
      ]);
      expect((await h.get('/healthz')).status).toBe(200);
      await writeFile(join(at.configDir, 'a.yaml'), 'domain: a\n');
      await waitUntil(async () => (await healthOf(h)) === 200);
      expect((await h.get('/readyz')).status).toBe(200);
      await rm(join(at.configDir, 'a.yaml'));
      await waitUntil(async () => (await healthOf(h)) === 500);
      expect(h.app.health.snapshot()).toEqual({ sigterm: true, kvstore: true, config: false });
    } finally {
      await h.close();
    }
  });

  it('configuration: off by default, so no configuration is still healthy', async () => {
    const h = await startHarness({}, { FORCE_START_WITHOUT_INITIAL_CONFIG: 'true' });
    try {
      expect(await healthOf(h)).toBe(200);
      expect(h.app.health.snapshot()).toEqual({ sigterm: true, kvstore: true });
    } finally {
      await h.close();
    }
  });
});
