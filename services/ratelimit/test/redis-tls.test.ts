import { createCertificates, startRedis, type RedisServer, type TestCertificates } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

describe('Redis over TLS with a client certificate', () => {
  let certs: TestCertificates;
  let redis: RedisServer;
  beforeAll(async () => {
    certs = await createCertificates();
    redis = await startRedis({ tls: certs });
  });
  afterAll(async () => redis.stop());

  it('counts in a Redis that only speaks TLS and requires a client certificate', async () => {
    const h = await startHarness(
      {
        'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
      },
      {
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        KVSTORE_TLS: 'true',
        KVSTORE_TLS_CACERT: certs.caCert,
        KVSTORE_TLS_CLIENT_CERT: certs.clientCert,
        KVSTORE_TLS_CLIENT_KEY: certs.clientKey,
      },
    );
    try {
      const body = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'tls' }] }] };
      expect((await h.json(body)).body).toMatchObject({ statuses: [{ limitRemaining: 1 }] });
      expect((await h.json(body)).body).toMatchObject({ statuses: [{ limitRemaining: 0 }] });
      expect((await h.json(body)).status).toBe(429);
    } finally {
      await h.close();
    }
  });
});
