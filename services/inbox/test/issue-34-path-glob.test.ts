import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, type InboxHarness } from './harness.js';

// issue 34: the `path` filter was a backtracking regular expression: `*a*a*a*a*a*a*a*a*a*b` against one
// capture at `/aaaa…` (36 × `a`) blocked the whole process for 5–7 s, and each `*a` more multiplies that.
// The inbox runs in this test's process: before the fix each call below held the event loop for minutes
// (44 × `a`, ten `*a`), and failed on the test timeout. No timing is asserted, only the answers.

const RUN = 'a'.repeat(44);
const ADVERSARIAL = `${'*a'.repeat(10)}*b`;

describe('issue 34: the path filter on adversarial globs', () => {
  let h: InboxHarness;
  let ep: { id: string; token: string };
  let shareToken: string;
  let matchId: string;

  const requestIds = (body: unknown): string[] =>
    (body as { requests: Array<{ id: string }> }).requests.map((r) => r.id);

  beforeAll(async () => {
    h = await startInboxHarness();
    ep = await h.createEndpoint('adversarial');
    for (const path of [`/${RUN}`, `/${RUN}b`, `/${RUN}/b/`]) {
      const r = await h.send('POST', `/api/hook/${ep.id}${path}`, { body: 'x' });
      expect(r.status).toBe(200);
      if (path === `/${RUN}b`) matchId = (r.json as { requestId: string }).requestId;
    }
    const share = await h.api('POST', `/api/endpoints/${ep.id}/shares`, { token: ep.token });
    expect(share.status).toBe(201);
    shareToken = (share.json as { token: string }).token;
  });
  afterAll(async () => {
    await h.close();
  });

  it('searches, finding the one capture that matches', async () => {
    const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?path=${ADVERSARIAL}`, { token: ep.token });
    expect(r.status).toBe(200);
    expect(requestIds(r.json)).toEqual([matchId]);
    expect((await h.send('GET', '/healthz')).status).toBe(200);
  });

  it('searches with a share token', async () => {
    const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?path=${ADVERSARIAL}`, {
      token: shareToken,
    });
    expect(r.status).toBe(200);
    expect(requestIds(r.json)).toEqual([matchId]);
  });

  it('exports HAR and NDJSON', async () => {
    const har = await h.api('GET', `/api/endpoints/${ep.id}/requests.har?path=${ADVERSARIAL}`, {
      token: ep.token,
    });
    expect(har.status).toBe(200);
    const entries = (har.json as { log: { entries: Array<{ _requestId: string }> } }).log.entries;
    expect(entries.map((e) => e._requestId)).toEqual([matchId]);
    const ndjson = await h.api('GET', `/api/endpoints/${ep.id}/requests.ndjson?path=${ADVERSARIAL}`, {
      token: ep.token,
    });
    expect(ndjson.status).toBe(200);
    const lines = ndjson.body.toString().trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([matchId]);
  });

  it('matches a 200-character glob of stars and runs of one letter, and refuses a longer one', async () => {
    const glob = `/${'a*'.repeat(99)}b`;
    expect(glob).toHaveLength(200);
    const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?path=${glob}`, { token: ep.token });
    expect(requestIds(r.json)).toEqual([]);
    const longer = await h.api('GET', `/api/endpoints/${ep.id}/requests?path=${glob}*`, { token: ep.token });
    expect(longer.status).toBe(400);
  });
});
