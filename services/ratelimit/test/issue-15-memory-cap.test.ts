import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// Issue 15, finding 9: the memory backend held a key per counter with no bound but expiry (~390 B each).

const CONFIG = `domain: web
descriptors:
  - key: user
    rate_limit: { unit: hour, requests_per_unit: 100 }
`;

const ask = (user: string) => ({ domain: 'web', descriptors: [{ entries: [{ key: 'user', value: user }] }] });

describe('issue 15: MEMORY_MAX_KEYS bounds the memory backend', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ 'web.yaml': CONFIG }, { BACKEND_TYPE: 'memory', MEMORY_MAX_KEYS: '2' });
  });
  afterAll(() => h.close());

  it('answers calls needing a new key past the bound as a backend failure, keeps counting held keys, and counts refusals on /metrics', async () => {
    expect(await h.rls.shouldRateLimit(ask('alice'))).toMatchObject({ overallCode: 'OK' });
    expect(await h.rls.shouldRateLimit(ask('bob'))).toMatchObject({ overallCode: 'OK' });
    await expect(h.rls.shouldRateLimit(ask('carol'))).rejects.toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
      details: 'rate limit backend failed',
    });
    const json = await h.json(ask('dave'));
    expect(json.status).toBe(503);
    expect(json.body).toEqual({ error: 'rate limit backend failed', code: 'BACKEND_UNAVAILABLE' });
    expect(await h.rls.shouldRateLimit(ask('alice'))).toMatchObject({
      overallCode: 'OK',
      statuses: [{ limitRemaining: 98 }],
    });

    const metrics = (await h.get('/metrics', 'debug')).text;
    expect(metrics).toMatch(/^ratelimit_memory_new_keys_refused 2$/m);
    expect(metrics).toMatch(/^ratelimit_memory_keys 2$/m);
    expect(metrics).toMatch(/^ratelimit_service_call_should_rate_limit_redis_error 2$/m);
  });
});
