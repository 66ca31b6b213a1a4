import { expect, it } from 'vitest';
import { describeEachStore, waitUntil } from './harness.js';

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
      await waitUntil(async () => (await h.app.store.countCaptures(ep.id)) === 0);
      const page = (await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token })).json as Page;
      expect(page.requests).toEqual([]);
    });
  },
  { INBOX_RETENTION_MAX_AGE: '200ms', INBOX_RETENTION_TRIM_INTERVAL: '50ms' },
);
