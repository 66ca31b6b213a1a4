import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStreamId } from '../src/contract/stream-id.js';
import {
  ADMIN_TOKEN,
  describeEachStore,
  startInboxHarness,
  type InboxHarness,
  type InboxUnderTest,
} from './harness.js';

const TARGET = {
  url: 'http://127.0.0.1:9/hooks',
  pathMode: 'append' as const,
  enabled: false,
  timeoutSeconds: 5,
  maxAttempts: 3,
  initialDelaySeconds: 1,
  maxDelaySeconds: 10,
  maxConcurrent: 32,
};

describeEachStore('admin API: the managed endpoints', (get) => {
  let h: InboxUnderTest;
  beforeAll(async () => {
    h = get();
    await h.store.syncManagedEndpoints([
      {
        id: 'admin-view-endpoint-quiet-01',
        name: 'quiet',
        resource: 'shop/quiet',
        retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
        forward: [],
      },
      {
        id: 'admin-view-endpoint-busy-002',
        name: 'busy',
        resource: 'shop/busy',
        retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
        forward: [TARGET],
      },
    ]);
  });

  it('lists each managed endpoint with its resource, targets, capture count and last capture', async () => {
    await h.createEndpoint('anonymous, not listed');
    await h.send('POST', '/api/hook/admin-view-endpoint-busy-002', { body: 'a' });
    const last = (await h.send('POST', '/api/hook/admin-view-endpoint-busy-002/x', { body: 'b' })).json as {
      requestId: string;
    };
    const r = await h.api('GET', '/api/admin/endpoints', { token: ADMIN_TOKEN });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      endpoints: [
        {
          id: 'admin-view-endpoint-busy-002',
          name: 'busy',
          resource: 'shop/busy',
          receiveUrl: 'http://localhost:8089/api/hook/admin-view-endpoint-busy-002',
          createdAt: expect.any(String) as unknown,
          forward: [TARGET],
          requestCount: 2,
          lastCaptureAt: new Date(parseStreamId(last.requestId)[0]).toISOString(),
        },
        {
          id: 'admin-view-endpoint-quiet-01',
          name: 'quiet',
          resource: 'shop/quiet',
          receiveUrl: 'http://localhost:8089/api/hook/admin-view-endpoint-quiet-01',
          createdAt: expect.any(String) as unknown,
          forward: [],
          requestCount: 0,
          lastCaptureAt: null,
        },
      ],
    });
  });

  it('answers 401 without the admin token, and to any other token', async () => {
    const ep = await h.createEndpoint();
    for (const token of [undefined, ep.token, `${ADMIN_TOKEN}x`]) {
      const r = await h.api('GET', '/api/admin/endpoints', token === undefined ? {} : { token });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="inbox"/);
      expect(r.json).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const cookie = await h.signUp(`admin-view-${Date.now()}`);
    const bySession = await h.send('GET', '/api/admin/endpoints', { headers: { cookie } });
    expect(bySession.status).toBe(401);
  });
});

describe('admin API with no INBOX_ADMIN_TOKEN', () => {
  let h: InboxHarness;
  beforeAll(async () => {
    h = await startInboxHarness({ INBOX_ADMIN_TOKEN: '' });
  });
  afterAll(() => h.close());

  it('answers 404 ADMIN_DISABLED, whatever is sent', async () => {
    for (const token of [undefined, ADMIN_TOKEN]) {
      const r = await h.api('GET', '/api/admin/endpoints', token === undefined ? {} : { token });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({
        error: 'the admin view is off: INBOX_ADMIN_TOKEN is not set',
        code: 'ADMIN_DISABLED',
      });
    }
  });
});
