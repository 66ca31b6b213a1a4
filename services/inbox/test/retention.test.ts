import { expect, it } from 'vitest';
import { describeEachStore, waitUntil, type InboxUnderTest } from './harness.js';

interface Page {
  requests: Array<{ id: string }>;
}

describeEachStore(
  'retention by count',
  (get) => {
    it('keeps the newest INBOX_RETENTION_MAX_REQUESTS captures of an endpoint', async () => {
      const h = get();
      const ep = await h.createEndpoint();
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        ids.push(
          ((await h.send('POST', `/api/hook/${ep.id}`, { body: `${i}` })).json as { requestId: string })
            .requestId,
        );
      }
      const page = (await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token })).json as Page;
      expect(page.requests.map((r) => r.id)).toEqual(ids.slice(-3).reverse());
    });
  },
  { INBOX_RETENTION_MAX_REQUESTS: '3' },
);

describeEachStore(
  'retention by age',
  (get) => {
    it('trims captures older than INBOX_RETENTION_MAX_AGE, periodically', async () => {
      const h = get();
      const ep = await h.createEndpoint();
      for (let i = 0; i < 3; i++) expect((await h.send('POST', `/api/hook/${ep.id}`)).status).toBe(200);
      await waitUntil(async () => (await h.store.countCaptures(ep.id)) === 0);
      const page = (await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token })).json as Page;
      expect(page.requests).toEqual([]);
    });
  },
  { INBOX_RETENTION_MAX_AGE: '200ms', INBOX_RETENTION_TRIM_INTERVAL: '50ms' },
);

const trimmedTotal = async (h: InboxUnderTest, reason: string): Promise<number> => {
  const text = (await h.send('GET', '/metrics')).body.toString();
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith('portcullis_inbox_retention_trimmed_total{') && l.includes(`reason="${reason}"`),
    );
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
};

describeEachStore(
  'retention per endpoint',
  (get) => {
    it('keeps the newest maxRequests the owner sets, within the ceiling, and counts what it trims', async () => {
      const h = get();
      const ep = await h.createEndpoint();
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
        retention: { maxRequests: 5, maxAgeSeconds: 3600 },
      });
      const set = await h.api('PUT', `/api/endpoints/${ep.id}/retention`, {
        token: ep.token,
        body: { maxRequests: 2, maxAgeSeconds: 60 },
      });
      expect([set.status, set.json]).toEqual([200, { maxRequests: 2, maxAgeSeconds: 60 }]);
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
        retention: { maxRequests: 2, maxAgeSeconds: 60 },
      });
      // the capture path remembers an endpoint for up to a second: wait until it trims at 2
      await waitUntil(async () => {
        await h.send('POST', `/api/hook/${ep.id}`, { body: 'x' });
        return (await h.store.countCaptures(ep.id)) === 2;
      });
      const before = await trimmedTotal(h, 'count');
      const sent = [];
      for (let i = 0; i < 4; i++) {
        sent.push(
          ((await h.send('POST', `/api/hook/${ep.id}`, { body: `${i}` })).json as { requestId: string })
            .requestId,
        );
      }
      const page = (await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token })).json as Page;
      expect(page.requests.map((r) => r.id)).toEqual(sent.slice(-2).reverse());
      expect((await trimmedTotal(h, 'count')) - before).toBe(4);
    });

    it('refuses values above the ceilings or below 1, naming each; a missing one is the ceiling', async () => {
      const h = get();
      const ep = await h.createEndpoint();
      const put = (body: unknown) =>
        h.api('PUT', `/api/endpoints/${ep.id}/retention`, { token: ep.token, body });
      const r = await put({ maxRequests: 6, maxAgeSeconds: 0, colour: 'red' });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        error:
          "retention: colour: unknown field; retention: maxRequests: expected an integer from 1 to 5, the inbox's ceiling; retention: maxAgeSeconds: expected an integer from 1 to 3600, the inbox's ceiling",
        code: 'INVALID_ARGUMENT',
      });
      expect((await put({ maxRequests: 1.5 })).status).toBe(400);
      expect((await put({ maxRequests: 3 })).json).toEqual({ maxRequests: 3, maxAgeSeconds: 3600 });
    });
  },
  { INBOX_RETENTION_MAX_REQUESTS: '5', INBOX_RETENTION_MAX_AGE: '1h' },
);

describeEachStore(
  'retention per endpoint by age',
  (get) => {
    it('trims by the age the owner sets, and counts it', async () => {
      const h = get();
      const ep = await h.createEndpoint();
      const keeper = await h.createEndpoint();
      await h.api('PUT', `/api/endpoints/${ep.id}/retention`, {
        token: ep.token,
        body: { maxAgeSeconds: 1 },
      });
      for (let i = 0; i < 3; i++) await h.send('POST', `/api/hook/${ep.id}`);
      await h.send('POST', `/api/hook/${keeper.id}`);
      await waitUntil(async () => (await h.store.countCaptures(ep.id)) === 0, 10_000);
      expect(await trimmedTotal(h, 'age')).toBe(3);
      expect(await h.store.countCaptures(keeper.id)).toBe(1);
    });
  },
  { INBOX_RETENTION_TRIM_INTERVAL: '50ms' },
);
