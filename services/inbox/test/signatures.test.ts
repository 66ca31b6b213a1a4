import { createHmac } from 'node:crypto';
import { redisCli, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachStore, startInboxHarness, type InboxUnderTest } from './harness.js';
import { openSse } from './sse-client.js';

const SECRETS_KEY = 'c0ffee'.repeat(10) + 'c0ff';
const GH_SECRET = 'It is a secret to everybody';
const github = (body: string, secret = GH_SECRET): string[] => [
  'Content-Type',
  'application/json',
  'X-Hub-Signature-256',
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
];

describeEachStore(
  'signature presets',
  (get) => {
    let h: InboxUnderTest;
    beforeAll(() => {
      h = get();
    });
    const setPreset = (ep: { id: string; token: string }, body: unknown) =>
      h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token, body });
    const capture = async (id: string, body: string, rawHeaders: string[]): Promise<string> => {
      const r = await h.send('POST', `/api/hook/${id}/gh`, { rawHeaders, body });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ ok: true, requestId: expect.any(String) as unknown });
      return (r.json as { requestId: string }).requestId;
    };

    it('sets a preset, shows it without the secret, and checks each capture: verified, failed, not checked', async () => {
      const ep = await h.createEndpoint('github');
      const plain = await h.createEndpoint('no preset');
      const set = await setPreset(ep, { provider: 'github', secret: GH_SECRET });
      expect(set.status).toBe(200);
      expect(set.json).toEqual({ provider: 'github', secretSet: true });
      expect(set.body.toString()).not.toContain(GH_SECRET);
      const shown = await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
      expect(shown.json).toMatchObject({ signature: { provider: 'github', secretSet: true } });
      expect(shown.body.toString()).not.toContain(GH_SECRET);
      expect((await h.api('GET', `/api/endpoints/${plain.id}`, { token: plain.token })).json).toMatchObject({
        signature: null,
      });

      const live = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: ep.token });
      await live.waitFor((events) => events.some((e) => e.event === 'ready'));
      const body = '{"zen":"Keep it logically awesome."}\n';
      const good = await capture(ep.id, body, github(body));
      const wrongSecret = await capture(ep.id, body, github(body, 'another secret'));
      const unsigned = await capture(ep.id, body, ['Content-Type', 'application/json']);
      const notChecked = await capture(plain.id, body, github(body));

      const list = await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token });
      const byId = new Map(
        (list.json as { requests: Array<{ id: string; signature: unknown }> }).requests.map((r) => [
          r.id,
          r.signature,
        ]),
      );
      expect(byId.get(good)).toEqual({ status: 'verified', provider: 'github' });
      expect(byId.get(wrongSecret)).toEqual({
        status: 'failed',
        provider: 'github',
        reason: 'mismatch',
        message: 'the signature does not match the body',
      });
      expect(byId.get(unsigned)).toEqual({
        status: 'failed',
        provider: 'github',
        reason: 'missing_header',
        message: 'no X-Hub-Signature-256 header',
      });
      const detail = await h.api('GET', `/api/endpoints/${plain.id}/requests/${notChecked}`, {
        token: plain.token,
      });
      expect(detail.json).toMatchObject({ signature: { status: 'not_checked' } });
      const full = await h.api('GET', `/api/endpoints/${ep.id}/requests/${good}`, { token: ep.token });
      expect(full.json).toMatchObject({ signature: { status: 'verified', provider: 'github' } });

      await live.waitFor((events) => events.filter((e) => e.event === 'request').length === 3);
      expect(
        live.events
          .filter((e) => e.event === 'request')
          .map((e) => (e.data as { signature: unknown }).signature),
      ).toEqual([byId.get(good), byId.get(wrongSecret), byId.get(unsigned)]);
      live.close();
    });

    it('checks Stripe, Slack, Shopify, Standard Webhooks and a generic HMAC over the stored bytes', async () => {
      const nowS = Math.floor(Date.now() / 1000);
      const body = 'payload=%7B%22a%22%3A1%7D\r\n';
      const hmac = (key: string | Buffer, data: string, enc: 'hex' | 'base64' = 'hex') =>
        createHmac('sha256', key).update(data).digest(enc);
      const swKey = Buffer.from('0123456789abcdef01234567');
      const cases: Array<{ preset: Record<string, unknown>; headers: string[] }> = [
        {
          preset: { provider: 'stripe', secret: 'whsec_stripe' },
          headers: ['Stripe-Signature', `t=${nowS},v1=${hmac('whsec_stripe', `${nowS}.${body}`)}`],
        },
        {
          preset: { provider: 'slack', secret: 'slack-signing' },
          headers: [
            'X-Slack-Request-Timestamp',
            String(nowS),
            'X-Slack-Signature',
            `v0=${hmac('slack-signing', `v0:${nowS}:${body}`)}`,
          ],
        },
        {
          preset: { provider: 'shopify', secret: 'shpss_1' },
          headers: ['X-Shopify-Hmac-Sha256', hmac('shpss_1', body, 'base64')],
        },
        {
          preset: { provider: 'standard-webhooks', secret: `whsec_${swKey.toString('base64')}` },
          headers: [
            'webhook-id',
            'msg_1',
            'webhook-timestamp',
            String(nowS),
            'webhook-signature',
            `v1,${hmac(swKey, `msg_1.${nowS}.${body}`, 'base64')}`,
          ],
        },
        {
          preset: { provider: 'hmac', secret: 'k', header: 'X-Signature', prefix: 'sha256=' },
          headers: ['X-Signature', `sha256=${hmac('k', body)}`],
        },
      ];
      for (const c of cases) {
        const ep = await h.createEndpoint();
        expect((await setPreset(ep, c.preset)).status).toBe(200);
        const id = await capture(ep.id, body, c.headers);
        const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${id}`, { token: ep.token });
        expect(r.json).toMatchObject({ signature: { status: 'verified', provider: c.preset.provider } });
      }
    });

    it('reports a signature outside the tolerance, and the tolerance is the endpoint’s', async () => {
      const ep = await h.createEndpoint();
      const set = await setPreset(ep, { provider: 'stripe', secret: 's', toleranceSeconds: 60 });
      expect(set.json).toEqual({ provider: 'stripe', toleranceSeconds: 60, secretSet: true });
      const t = Math.floor(Date.now() / 1000) - 600;
      const sig = createHmac('sha256', 's').update(`${t}.{}`).digest('hex');
      const id = await capture(ep.id, '{}', ['Stripe-Signature', `t=${t},v1=${sig}`]);
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${id}`, { token: ep.token });
      expect(r.json).toMatchObject({
        signature: { status: 'failed', provider: 'stripe', reason: 'timestamp_outside_tolerance' },
      });
    });

    it('removes a preset: 204, then no signature shown', async () => {
      const ep = await h.createEndpoint();
      await setPreset(ep, { provider: 'shopify', secret: 'x' });
      const del = await h.api('DELETE', `/api/endpoints/${ep.id}/signature`, { token: ep.token });
      expect(del.status).toBe(204);
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
        signature: null,
      });
      expect((await h.api('DELETE', `/api/endpoints/${ep.id}/signature`, { token: ep.token })).status).toBe(
        204,
      );
    });

    it('refuses bad input with 400 naming every field', async () => {
      const ep = await h.createEndpoint();
      const bad = await setPreset(ep, { provider: 'paypal', secret: '', toleranceSeconds: 5 });
      expect(bad.status).toBe(400);
      expect(bad.json).toEqual({
        code: 'INVALID_ARGUMENT',
        error:
          'signature: provider: expected one of github, stripe, slack, shopify, standard-webhooks, hmac; ' +
          'signature: toleranceSeconds: only for stripe, slack and standard-webhooks; ' +
          'signature: secret: expected 1 to 1024 characters',
      });
      const tolerance = await setPreset(ep, { provider: 'slack', secret: 's', toleranceSeconds: 0 });
      expect(tolerance.json).toEqual({
        code: 'INVALID_ARGUMENT',
        error: 'signature: toleranceSeconds: expected 1 to 86400 seconds',
      });
      const hmac = await setPreset(ep, { provider: 'hmac', secret: 's', algorithm: 'md5' });
      expect(hmac.json).toMatchObject({
        error:
          'signature: header: expected a header name (1 to 100 characters); ' +
          'signature: algorithm: expected one of sha1, sha256, sha512',
      });
      const mistyped = await setPreset(ep, { provider: 'stripe', secret: 12345, toleranceSeconds: '60' });
      expect(mistyped.json).toMatchObject({
        error: 'signature: secret: expected a string; signature: toleranceSeconds: expected a number',
      });
      expect((await h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token })).status).toBe(400);
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
        signature: null,
      });
    });

    it('lets an account set its endpoint’s preset from a session, with the CSRF header', async () => {
      const cookie = await h.signUp(`sig-${Date.now()}`);
      const created = await h.send('POST', '/api/endpoints', { headers: { cookie, 'x-inbox-csrf': '1' } });
      const id = (created.json as { id: string }).id;
      const body = JSON.stringify({ provider: 'slack', secret: 'account-secret' });
      const put = (headers: Record<string, string>) =>
        h.send('PUT', `/api/endpoints/${id}/signature`, {
          body,
          headers: { cookie, 'content-type': 'application/json', ...headers },
        });
      expect((await put({})).status).toBe(403);
      const done = await put({ 'x-inbox-csrf': '1' });
      expect(done.status).toBe(200);
      expect(done.json).toEqual({ provider: 'slack', toleranceSeconds: 300, secretSet: true });
    });

    it('needs the endpoint’s token, and leaves managed endpoints to their resource', async () => {
      const ep = await h.createEndpoint();
      const other = await h.createEndpoint();
      const body = { provider: 'github', secret: 'x' };
      expect(
        (await h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: other.token, body })).status,
      ).toBe(401);
      expect((await h.api('DELETE', `/api/endpoints/${ep.id}/signature`)).status).toBe(401);
      const managedId = 'TWFuYWdlZC1zaWduYXR1cmUtMQ';
      await h.store.syncManagedEndpoints([
        {
          id: managedId,
          name: 'm',
          resource: 'ns/m',
          retention: { maxRequests: 10, maxAgeMs: 60_000 },
          forward: [],
        },
      ]);
      const managed = await h.api('PUT', `/api/endpoints/${managedId}/signature`, {
        token: ADMIN_TOKEN,
        body,
      });
      expect(managed.status).toBe(409);
      expect(managed.json).toMatchObject({ code: 'ENDPOINT_MANAGED' });
      await h.store.syncManagedEndpoints([]);
    });
  },
  { INBOX_SECRETS_KEY: SECRETS_KEY },
);

describe('signature secrets at rest', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('are sealed in Redis (AES-256-GCM), and refused with 503 when no INBOX_SECRETS_KEY is set', async () => {
    const h = await startInboxHarness({
      REDIS_URL: `redis://${redis.address}`,
      INBOX_SECRETS_KEY: SECRETS_KEY,
    });
    const ep = await h.createEndpoint();
    const body = { provider: 'github', secret: GH_SECRET };
    expect((await h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token, body })).status).toBe(
      200,
    );
    const stored = await redisCli(redis.port, 'HGET', `inbox:ep:{${ep.id}}`, 'signature');
    expect(JSON.parse(stored)).toEqual({
      preset: { provider: 'github' },
      sealedSecret: expect.stringMatching(/^v1\./) as unknown,
    });
    expect(stored).not.toContain(GH_SECRET);
    await h.close();

    const keyless = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
    const refused = await keyless.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token, body });
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({
      code: 'SECRETS_KEY_MISSING',
      error: 'this inbox keeps no signature secrets: INBOX_SECRETS_KEY is not set',
    });
    // the preset set before stays, but is not checked without the key that sealed it
    const payload = '{}';
    const captured = await keyless.send('POST', `/api/hook/${ep.id}`, {
      rawHeaders: github(payload),
      body: payload,
    });
    expect(captured.status).toBe(200);
    const id = (captured.json as { requestId: string }).requestId;
    const r = await keyless.api('GET', `/api/endpoints/${ep.id}/requests/${id}`, { token: ep.token });
    expect(r.json).toMatchObject({ signature: { status: 'not_checked' } });
    await keyless.close();
  });

  it('on the memory store without a key, are sealed with a key of the process', async () => {
    const h = await startInboxHarness();
    const ep = await h.createEndpoint();
    const body = { provider: 'github', secret: GH_SECRET };
    expect((await h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token, body })).status).toBe(
      200,
    );
    const record = await h.app.store.getEndpoint(ep.id);
    expect(record?.signature?.sealedSecret).toMatch(/^v1\./);
    expect(JSON.stringify(record)).not.toContain(GH_SECRET);
    const payload = '[]';
    const captured = await h.send('POST', `/api/hook/${ep.id}`, {
      rawHeaders: github(payload),
      body: payload,
    });
    const id = (captured.json as { requestId: string }).requestId;
    const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${id}`, { token: ep.token });
    expect(r.json).toMatchObject({ signature: { status: 'verified' } });
    await h.close();
  });
});
