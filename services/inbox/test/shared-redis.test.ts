import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, waitUntil, type InboxHarness } from './harness.js';
import { openSse } from './sse-client.js';

describe('two inbox processes on one Redis', () => {
  let redis: RedisServer;
  let a: InboxHarness;
  let b: InboxHarness;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { REDIS_URL: `redis://${redis.address}` };
    a = await startInboxHarness(env);
    b = await startInboxHarness(env);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('shows a capture taken by A to a subscriber on B, and B resumes from ids A gave', async () => {
    const ep = await a.createEndpoint();
    const onB = await openSse(`${b.url}/api/endpoints/${ep.id}/stream`, { token: ep.token });
    await onB.waitFor((events) => events.some((e) => e.event === 'ready'));
    const first = (
      (await a.send('POST', `/api/hook/${ep.id}`, { body: 'on A' })).json as { requestId: string }
    ).requestId;
    await onB.waitFor(() => onB.requestIds().includes(first));
    onB.close();
    const second = (
      (await b.send('POST', `/api/hook/${ep.id}`, { body: 'on B' })).json as { requestId: string }
    ).requestId;
    const resumed = await openSse(`${a.url}/api/endpoints/${ep.id}/stream`, {
      token: ep.token,
      lastEventId: first,
    });
    await resumed.waitFor(() => resumed.requestIds().length > 0);
    expect(resumed.requestIds()).toEqual([second]);
    resumed.close();
    const renamed = await b.api('PATCH', `/api/endpoints/${ep.id}`, {
      token: ep.token,
      body: { name: 'shared' },
    });
    expect(renamed.status).toBe(200);
    expect(
      ((await a.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json as { name: string }).name,
    ).toBe('shared');
  });

  it('answers 503 JSON while Redis is down, stores nothing half-way, and recovers', async () => {
    const ep = await a.createEndpoint();
    const port = redis.port;
    await redis.kill();
    const down = await a.send('POST', `/api/hook/${ep.id}`, { body: 'while down' });
    expect([down.status, (down.json as { code: string }).code]).toEqual([503, 'UNAVAILABLE']);
    const read = await a.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
    expect(read.status).toBe(503);
    // a fresh server on the same port: persistence is off, so everything before is gone
    redis = await startRedis({ port });
    const reconnected = (): Promise<boolean> =>
      a.createEndpoint().then(
        () => true,
        () => false,
      );
    await waitUntil(reconnected, 10_000);
    const again = await a.createEndpoint();
    const ok = await a.send('POST', `/api/hook/${again.id}`, { body: 'after' });
    expect(ok.status).toBe(200);
  });
});
