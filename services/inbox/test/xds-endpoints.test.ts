import { createHmac } from 'node:crypto';
import { freePort, quietLog, startRedis } from '@portcullis/testing';
import { createSotwServer, type SotwServer, type XdsResource } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  encodeInboxEndpoint,
  INBOX_ENDPOINT_TYPE,
} from '../src/managed-endpoints/inbox-endpoint-resources.js';
import {
  ADMIN_TOKEN,
  describeEachStore,
  startInboxHarness,
  waitUntil,
  type InboxHarness,
  type InboxUnderTest,
} from './harness.js';

const PAYMENTS = 'payments-hooks-4f9c2a7d1e8b';
const GITHUB = 'github-hooks-0123456789abcdef';

const resource = (name: string, endpointId: string, displayName: string): XdsResource => ({
  name,
  value: encodeInboxEndpoint({
    name,
    endpointId,
    displayName,
    forward: [
      {
        url: 'http://127.0.0.1:3000/webhooks',
        pathMode: 'append',
        enabled: true,
        timeoutSeconds: 10,
        maxAttempts: 5,
        initialDelaySeconds: 30,
        maxDelaySeconds: 3600,
      },
    ],
    retention: { maxRequests: 1000, maxAgeHours: 72, maxBytes: 52_428_800 },
  }),
});

const INITIAL = [
  resource('default/payments', PAYMENTS, 'Payment provider webhooks'),
  resource('default/github', GITHUB, 'GitHub'),
];

const xdsPort = await freePort();
let xds: SotwServer;
const nacks: string[] = [];

beforeAll(async () => {
  xds = createSotwServer({ host: '127.0.0.1', port: xdsPort, log: quietLog });
  xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
  xds.on('nack', (e) => nacks.push(e.message));
  await xds.start();
});
afterAll(() => xds.close());

describeEachStore(
  'InboxEndpoint resources over xDS',
  (get) => {
    let h: InboxUnderTest;
    const admin = (id: string) => h.api('GET', `/api/endpoints/${id}`, { token: ADMIN_TOKEN });
    beforeAll(async () => {
      h = get();
      // the previous suite may have left other resources in place
      xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
      await waitUntil(async () => (await admin(GITHUB)).status === 200);
    });

    it('creates stable endpoints that capture at once, readable with the admin token only', async () => {
      const r = await h.send('POST', `/api/hook/${PAYMENTS}/charge?x=1`, { body: '{"id":"evt_1"}' });
      expect(r.status).toBe(200);
      const ep = await admin(PAYMENTS);
      expect(ep.json).toEqual({
        id: PAYMENTS,
        name: 'Payment provider webhooks',
        kind: 'managed',
        resource: 'default/payments',
        receiveUrl: `http://localhost:8089/api/hook/${PAYMENTS}`,
        createdAt: expect.any(String) as unknown,
        retention: { maxRequests: 1000, maxAgeSeconds: 72 * 3600 },
        requestCount: 1,
        signature: null,
        response: null,
        forward: [
          {
            url: 'http://127.0.0.1:3000/webhooks',
            pathMode: 'append',
            enabled: true,
            timeoutSeconds: 10,
            maxAttempts: 5,
            initialDelaySeconds: 30,
            maxDelaySeconds: 3600,
            maxConcurrent: 32,
          },
        ],
      });
      expect((await h.api('GET', `/api/endpoints/${PAYMENTS}/requests`)).status).toBe(401);
      const other = await h.createEndpoint();
      expect((await h.api('GET', `/api/endpoints/${PAYMENTS}`, { token: other.token })).status).toBe(401);
      const rename = await h.api('PATCH', `/api/endpoints/${PAYMENTS}`, {
        token: ADMIN_TOKEN,
        body: { name: 'x' },
      });
      expect([rename.status, (rename.json as { code: string }).code]).toEqual([409, 'ENDPOINT_MANAGED']);
      expect((await h.api('DELETE', `/api/endpoints/${PAYMENTS}`, { token: ADMIN_TOKEN })).status).toBe(409);
      expect(await h.store.listManagedEndpoints()).toHaveLength(2);
    });

    it('follows updates; a removed endpoint stops capturing and gets its captures back when it returns', async () => {
      const captured = await h.store.countCaptures(GITHUB);
      expect((await h.send('POST', `/api/hook/${GITHUB}`, { body: 'push' })).status).toBe(200);
      xds.setResources(INBOX_ENDPOINT_TYPE, [resource('default/payments', PAYMENTS, 'Payments (renamed)')]);
      await waitUntil(async () => (await admin(GITHUB)).status === 404);
      expect(((await admin(PAYMENTS)).json as { name: string }).name).toBe('Payments (renamed)');
      expect((await h.send('POST', `/api/hook/${GITHUB}`, { body: 'lost' })).status).toBe(404);
      xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
      await waitUntil(async () => (await admin(GITHUB)).status === 200);
      expect(((await admin(GITHUB)).json as { requestCount: number }).requestCount).toBe(captured + 1);
    });

    it("answers with the resource's response; the API cannot change it", async () => {
      const SLACK = 'slack-events-7c1d9e2f4a6b8c0d';
      const slack: XdsResource = {
        name: 'default/slack',
        value: encodeInboxEndpoint({
          name: 'default/slack',
          endpointId: SLACK,
          displayName: 'Slack',
          retention: { maxRequests: 10, maxAgeHours: 1, maxBytes: 1_048_576 },
          response: {
            status: 200,
            headers: [{ name: 'Content-Type', value: 'text/plain' }],
            body: '{{body.challenge}}',
          },
        }),
      };
      xds.setResources(INBOX_ENDPOINT_TYPE, [...INITIAL, slack]);
      try {
        await waitUntil(async () => (await admin(SLACK)).status === 200);
        expect((await admin(SLACK)).json).toMatchObject({
          response: {
            status: 200,
            headers: [{ name: 'Content-Type', value: 'text/plain' }],
            body: '{{body.challenge}}',
            delayMs: 0,
          },
        });
        const r = await h.send('POST', `/api/hook/${SLACK}`, {
          headers: { 'content-type': 'application/json' },
          body: '{"type":"url_verification","challenge":"abc123"}',
        });
        expect([r.status, r.body.toString(), r.headers['content-type']]).toEqual([
          200,
          'abc123',
          'text/plain',
        ]);
        for (const [method, path, body] of [
          ['PUT', 'response', { status: 201 }],
          ['DELETE', 'response', undefined],
          ['PUT', 'retention', { maxRequests: 1 }],
        ] as const) {
          const change = await h.api(method, `/api/endpoints/${SLACK}/${path}`, { token: ADMIN_TOKEN, body });
          expect([change.status, (change.json as { code: string }).code]).toEqual([409, 'ENDPOINT_MANAGED']);
        }
        // the resource without its response: the default answer again
        const plain = { ...slack, value: encodeInboxEndpoint({ name: 'default/slack', endpointId: SLACK }) };
        xds.setResources(INBOX_ENDPOINT_TYPE, [...INITIAL, plain]);
        await waitUntil(async () => ((await admin(SLACK)).json as { response: unknown }).response === null);
        // the capture path remembers an endpoint for up to a second
        const answer = async () =>
          (await h.send('POST', `/api/hook/${SLACK}`)).json as { ok?: boolean } | undefined;
        await waitUntil(async () => (await answer())?.ok === true);
      } finally {
        xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
        await waitUntil(async () => (await admin(SLACK)).status === 404);
      }
    });

    it("checks captures against the resource's signature preset, its secret sealed on arrival", async () => {
      const SIGNED = 'signed-hooks-5e7a9c1b3d5f7a9c';
      const SECRET = 'gh-webhook-secret-from-a-kubernetes-secret';
      const signed = (signature: Record<string, unknown>): XdsResource => ({
        name: 'default/signed',
        value: encodeInboxEndpoint({ name: 'default/signed', endpointId: SIGNED, signature }),
      });
      xds.setResources(INBOX_ENDPOINT_TYPE, [...INITIAL, signed({ provider: 'github', secret: SECRET })]);
      try {
        await waitUntil(async () => (await admin(SIGNED)).status === 200);
        expect((await admin(SIGNED)).json).toMatchObject({
          signature: { provider: 'github', secretSet: true },
        });
        const record = await h.store.getEndpoint(SIGNED);
        expect(record?.signature?.sealedSecret).toMatch(/^v1\./);
        expect(JSON.stringify(record)).not.toContain(SECRET);
        const body = '{"action":"opened"}';
        const hmac = createHmac('sha256', SECRET).update(body).digest('hex');
        const check = async (signature: string) => {
          const r = await h.send('POST', `/api/hook/${SIGNED}`, {
            rawHeaders: ['X-Hub-Signature-256', signature],
            body,
          });
          const id = (r.json as { requestId: string }).requestId;
          const read = await h.api('GET', `/api/endpoints/${SIGNED}/requests/${id}`, { token: ADMIN_TOKEN });
          return (read.json as { signature: { status: string } }).signature.status;
        };
        expect(await check(`sha256=${hmac}`)).toBe('verified');
        expect(await check(`sha256=${'0'.repeat(64)}`)).toBe('failed');
        const change = await h.api('PUT', `/api/endpoints/${SIGNED}/signature`, {
          token: ADMIN_TOKEN,
          body: { provider: 'github', secret: 'other' },
        });
        expect([change.status, (change.json as { code: string }).code]).toEqual([409, 'ENDPOINT_MANAGED']);
        // a secret that is not the provider's kind is NACKed, naming the resource and field
        const before = nacks.length;
        xds.setResources(INBOX_ENDPOINT_TYPE, [
          ...INITIAL,
          signed({ provider: 'standard-webhooks', secret: 'not base64!' }),
        ]);
        await waitUntil(() => nacks.length > before);
        expect(nacks.at(-1)).toBe(
          'default/signed: signature: secret: expected whsec_ followed by base64, as the sender shows it',
        );
        // the resource without its preset: captures are no longer checked
        xds.setResources(INBOX_ENDPOINT_TYPE, [
          ...INITIAL,
          {
            name: 'default/signed',
            value: encodeInboxEndpoint({ name: 'default/signed', endpointId: SIGNED }),
          },
        ]);
        await waitUntil(
          async () => ((await admin(SIGNED)).json as { signature: unknown }).signature === null,
        );
        await waitUntil(async () => (await check(`sha256=${hmac}`)) === 'not_checked');
      } finally {
        xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
        await waitUntil(async () => (await admin(SIGNED)).status === 404);
      }
    });

    it('NACKs invalid resources and keeps the endpoints it has', async () => {
      const before = nacks.length;
      xds.setResources(INBOX_ENDPOINT_TYPE, [...INITIAL, resource('default/bad', 'too-short', 'Bad')]);
      await waitUntil(() => nacks.length > before);
      expect(nacks.at(-1)).toBe(
        'default/bad: endpointId: expected 22 to 64 URL-safe characters (A-Z, a-z, 0-9, _ and -)',
      );
      expect((await h.send('POST', `/api/hook/${PAYMENTS}`)).status).toBe(200);
    });

    it('leaves an anonymous endpoint alone when a resource claims its id', async () => {
      const anon = await h.createEndpoint('mine');
      const version = xds.setResources(INBOX_ENDPOINT_TYPE, [
        ...INITIAL,
        resource('default/thief', anon.id, 'Stolen'),
      ]);
      // ACKed once applied: the store has been asked by then
      await waitUntil(() => xds.clients().some((c) => c.types.some((t) => t.ackedVersion === version)));
      expect((await h.store.listManagedEndpoints()).map((e) => e.id).sort()).toEqual([GITHUB, PAYMENTS]);
      const read = await h.api('GET', `/api/endpoints/${anon.id}`, { token: anon.token });
      expect(read.json).toMatchObject({ kind: 'anonymous', name: 'mine' });
    });
  },
  () => ({
    INBOX_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
    INBOX_XDS_RETRY_INTERVAL: '100ms',
    INBOX_SECRETS_KEY: 'ab'.repeat(32),
  }),
);

/** An inbox of its own, on a Redis of its own, without INBOX_SECRETS_KEY, following the xDS server. */
async function startOnOwnRedis(): Promise<{
  redis: Awaited<ReturnType<typeof startRedis>>;
  h: InboxHarness;
}> {
  const redis = await startRedis();
  const h = await startInboxHarness({
    REDIS_URL: `redis://${redis.address}`,
    INBOX_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
    INBOX_XDS_RETRY_INTERVAL: '100ms',
  });
  return { redis, h };
}

describe('InboxEndpoint resources after Redis restarts empty', () => {
  it('applies the managed endpoints again once the connection is back, without a new config', async () => {
    xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
    const { redis, h } = await startOnOwnRedis();
    try {
      const capture = async () => (await h.send('POST', `/api/hook/${PAYMENTS}`, { body: 'x' })).status;
      expect(await capture()).toBe(200);
      await redis.kill();
      // no persistence: the server comes back empty, where the inbox expects it
      const again = await startRedis({ port: redis.port });
      try {
        await waitUntil(async () => (await capture()) === 200, 15_000);
        expect((await h.app.store.listManagedEndpoints()).map((e) => e.id).sort()).toEqual([
          GITHUB,
          PAYMENTS,
        ]);
      } finally {
        await again.stop();
      }
    } finally {
      await h.close();
    }
  });
});

describe('an InboxEndpoint with a signature preset, on Redis without INBOX_SECRETS_KEY', () => {
  it('is served unchecked: its secret is never kept in clear', async () => {
    const SIGNED = 'keyless-hooks-2b4d6f8a0c2e4a6c';
    const signed: XdsResource = {
      name: 'default/keyless',
      value: encodeInboxEndpoint({
        name: 'default/keyless',
        endpointId: SIGNED,
        signature: { provider: 'github', secret: 'kept-nowhere' },
      }),
    };
    xds.setResources(INBOX_ENDPOINT_TYPE, [...INITIAL, signed]);
    const { redis, h } = await startOnOwnRedis();
    try {
      const admin = () => h.api('GET', `/api/endpoints/${SIGNED}`, { token: ADMIN_TOKEN });
      await waitUntil(async () => (await admin()).status === 200);
      expect((await admin()).json).toMatchObject({ kind: 'managed', signature: null });
      expect(JSON.stringify(await h.app.store.getEndpoint(SIGNED))).not.toContain('kept-nowhere');
      expect((await h.send('POST', `/api/hook/${SIGNED}`, { body: '{}' })).status).toBe(200);
    } finally {
      xds.setResources(INBOX_ENDPOINT_TYPE, INITIAL);
      await h.close();
      await redis.stop();
    }
  });
});
