import { beforeAll, describe, expect, it } from 'vitest';
import {
  describeEachStore,
  LIVE_RECHECK_WAIT_MS,
  startInboxHarness,
  waitUntil,
  type InboxUnderTest,
} from './harness.js';
import { openSse, type SseClient } from './sse-client.js';

describeEachStore(
  'live stream',
  (get) => {
    let h: InboxUnderTest;
    beforeAll(() => {
      h = get();
    });
    const capture = async (id: string, body = 'x'): Promise<string> =>
      ((await h.send('POST', `/api/hook/${id}/live`, { body })).json as { requestId: string }).requestId;
    const stream = (ep: { id: string; token: string }, o: { lastEventId?: string; full?: boolean } = {}) =>
      openSse(`${h.url}/api/endpoints/${ep.id}/stream${o.full ? '?full=1' : ''}`, {
        token: ep.token,
        ...(o.lastEventId === undefined ? {} : { lastEventId: o.lastEventId }),
      });
    const isReady = (c: SseClient) => c.events.some((e) => e.event === 'ready');

    it('opens with SSE headers, a retry hint and a ready event', async () => {
      const ep = await h.createEndpoint();
      const s = await stream(ep);
      expect(s.status).toBe(200);
      expect(s.headers).toMatchObject({
        'content-type': 'text/event-stream; charset=utf-8',
        'x-accel-buffering': 'no',
        'cache-control': 'no-cache, no-transform',
      });
      await waitUntil(() => isReady(s));
      expect(s.retryMs).toBe(2000);
      expect(s.events[0]).toEqual({
        event: 'ready',
        data: { endpointId: ep.id, lastEventId: '0-0', replayUntil: '0-0' },
      });
      await waitUntil(() => s.comments > 0); // heartbeats (every 100 ms here)
      s.close();
    });

    it('delivers a capture to every open stream, as an event whose id is the request id', async () => {
      const ep = await h.createEndpoint();
      const summary = await stream(ep);
      const full = await stream(ep, { full: true });
      await waitUntil(() => isReady(summary) && isReady(full));
      // feeds are per process, and only an app in this process lists its own (with workers, the two
      // streams may well be on two processes, a feed in each)
      const app = h.app;
      if (app) expect(app.hub.liveEndpoints().filter((id) => id === ep.id)).toHaveLength(1);
      const id = await capture(ep.id, '{"hello":"world"}');
      await summary.waitFor(() => summary.requestIds().length === 1);
      await full.waitFor(() => full.requestIds().length === 1);
      expect(summary.events.at(-1)).toMatchObject({
        id,
        event: 'request',
        data: { id, method: 'POST', url: `/api/hook/${ep.id}/live`, bodySize: 17 },
      });
      expect(full.events.at(-1)).toMatchObject({
        id,
        data: { id, bodyBase64: Buffer.from('{"hello":"world"}').toString('base64') },
      });
      summary.close();
      full.close();
      if (app) await waitUntil(() => !app.hub.liveEndpoints().includes(ep.id));
    });

    it('starts from now without Last-Event-ID', async () => {
      const ep = await h.createEndpoint();
      await capture(ep.id);
      const s = await stream(ep);
      await waitUntil(() => isReady(s));
      const id = await capture(ep.id);
      await s.waitFor(() => s.requestIds().length > 0);
      expect(s.requestIds()).toEqual([id]);
      s.close();
    });

    it('resumes with Last-Event-ID: what was missed, then live, no gaps and no repeats', async () => {
      const ep = await h.createEndpoint();
      const first = await stream(ep);
      await waitUntil(() => isReady(first));
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) seen.push(await capture(ep.id));
      await first.waitFor(() => first.requestIds().length === 3);
      expect(first.requestIds()).toEqual(seen);
      first.close();
      const missed: string[] = [];
      for (let i = 0; i < 4; i++) missed.push(await capture(ep.id));
      // captures racing the reconnect and its replay
      const racing = Promise.all([capture(ep.id), capture(ep.id), capture(ep.id)]);
      const resumed = await stream(ep, { lastEventId: seen.at(-1)! });
      const during = await racing;
      const after = await capture(ep.id);
      const expected = [...missed, ...during.sort(byId), after];
      await resumed.waitFor(() => resumed.requestIds().length >= expected.length);
      expect(resumed.requestIds()).toEqual(expected);
      expect(resumed.events[0]).toMatchObject({ event: 'ready', data: { lastEventId: seen.at(-1) } });
      resumed.close();
    });

    it('ends open streams with a deleted event when the endpoint is deleted', async () => {
      const ep = await h.createEndpoint();
      const s = await stream(ep);
      await waitUntil(() => isReady(s));
      expect((await h.api('DELETE', `/api/endpoints/${ep.id}`, { token: ep.token })).status).toBe(204);
      await s.waitFor((events) => events.some((e) => e.event === 'deleted'), LIVE_RECHECK_WAIT_MS);
      await waitUntil(() => s.ended);
      expect(s.events.at(-1)).toEqual({ event: 'deleted', data: { endpointId: ep.id } });
    });

    it('refuses streams without the token, and a Last-Event-ID that is not a request id', async () => {
      const ep = await h.createEndpoint();
      const anonymous = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`);
      expect(anonymous.status).toBe(401);
      const bad = await stream(ep, { lastEventId: 'yesterday' });
      expect(bad.status).toBe(400);
    });

    it('counts open streams on /metrics', async () => {
      const ep = await h.createEndpoint();
      const gauge = async () =>
        Number(
          /portcullis_inbox_sse_subscribers\{[^}]*\} (\d+)/.exec(
            (await h.send('GET', '/metrics')).body.toString(),
          )?.[1],
        );
      const base = await gauge();
      const s = await stream(ep);
      await waitUntil(async () => (await gauge()) === base + 1);
      s.close();
      await waitUntil(async () => (await gauge()) === base);
    });
  },
  { INBOX_SSE_HEARTBEAT: '100ms' },
);

describe('shutdown', () => {
  it('ends open streams so that closing the app does not wait for them', async () => {
    const h = await startInboxHarness();
    const ep = await h.createEndpoint();
    const s = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: ep.token });
    await s.waitFor((events) => events.some((e) => e.event === 'ready'));
    await h.close();
    await waitUntil(() => s.ended);
    expect(h.app.hub.liveEndpoints()).toEqual([]);
  });
});

function byId(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
