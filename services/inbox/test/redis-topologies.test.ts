import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForwardTarget } from '@portcullis/config';
import type { Running } from '@portcullis/kit';
import { startRedisDeployment, waitUntil, type RedisDeployment } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureDetail } from '../src/contract/capture-json.js';
import { loadSettings } from '../src/settings.js';
import type { ForwardAttempt } from '../src/contract/capture-records.js';
import { startWorker } from '../src/worker/worker-app.js';
import {
  ADMIN_TOKEN,
  inboxRedisEnv,
  quietLog,
  sessionCookie,
  startInboxHarness,
  type InboxHarness,
} from './harness.js';

// The inbox on Sentinel and on Cluster (INBOX_REDIS_TYPE): captures byte for byte, accounts and a claim (an
// account's index and the endpoint in one script), and the forwarding worker's consumer group.

describe.each(['sentinel', 'cluster'] as const)('inbox on Redis %s', (type) => {
  let deployment: RedisDeployment;
  let env: Record<string, string>;
  let h: InboxHarness;
  beforeAll(async () => {
    deployment = await startRedisDeployment(type);
    env = inboxRedisEnv(deployment);
    h = await startInboxHarness(env);
  }, 60_000);
  afterAll(async () => {
    await h.close();
    await deployment.stop();
  });

  it('captures binary bodies byte for byte, lists and counts them', async () => {
    const ep = await h.createEndpoint('topology');
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]);
    const sent = await h.send('POST', `/api/hook/${ep.id}/x`, {
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });
    expect(sent.status).toBe(200);
    const { requestId } = sent.json as { requestId: string };
    const detail = await h.api('GET', `/api/endpoints/${ep.id}/requests/${requestId}`, { token: ep.token });
    expect(Buffer.from((detail.json as CaptureDetail).bodyBase64, 'base64').equals(body)).toBe(true);
    const info = await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
    expect(info.json).toMatchObject({ requestCount: 1 });
  });

  it('exposes the store and accounts connections in /metrics', async () => {
    const metrics = (await h.send('GET', '/metrics')).body.toString();
    expect(metrics).toMatch(/^redis_connections_active\{[^}]*pool="store"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^redis_connections_active\{[^}]*pool="accounts"[^}]*\} 1$/m);
  });

  it('signs up, claims an anonymous endpoint into the account, signs out', async () => {
    const anon = await h.createEndpoint('to claim');
    const cookie = await h.signUp(`${type}-user`);
    const write = { cookie, 'x-inbox-csrf': '1' };
    const claimed = await h.send('POST', `/api/endpoints/${anon.id}/claim`, {
      token: anon.token,
      headers: write,
    });
    expect(claimed.status).toBe(200);
    const mine = await h.send('GET', '/api/endpoints', { headers: { cookie } });
    expect(mine.json).toMatchObject({ endpoints: [{ id: anon.id, kind: 'account' }] });
    const signIn = await h.send('POST', '/api/session', {
      body: JSON.stringify({ username: `${type}-user`, password: 'correct horse battery' }),
      headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
    });
    const second = sessionCookie(signIn.headers);
    expect(
      (await h.send('DELETE', '/api/session', { headers: { cookie: second, 'x-inbox-csrf': '1' } })).status,
    ).toBe(204);
    expect((await h.send('GET', '/api/session', { headers: { cookie: second } })).json).toEqual({
      account: null,
    });
  });

  it('forwards captures of managed endpoints through the consumer group', async () => {
    const received: string[] = [];
    const target: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString());
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const forward: ForwardTarget = {
      ...{ url, pathMode: 'append', enabled: true, timeoutSeconds: 5 },
      ...{ maxAttempts: 3, initialDelaySeconds: 0, maxDelaySeconds: 0, maxConcurrent: 32 },
    };
    const ids = ['fwd-a-0123456789abcdef', 'fwd-b-0123456789abcdef'];
    await h.app.store.syncManagedEndpoints(
      ids.map((id) => ({
        id,
        name: id,
        resource: `default/${id}`,
        retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
        forward: [forward],
      })),
    );
    let worker: Running | undefined;
    try {
      worker = await startWorker(
        loadSettings({ ...env, INBOX_EGRESS_ALLOW_PRIVATE: 'true', INBOX_WORKER_NAME: `w-${type}` }),
        { log: quietLog },
      );
      const requestIds: string[] = [];
      for (const id of ids) {
        const r = await h.send('POST', `/api/hook/${id}`, { body: `to ${id}` });
        requestIds.push((r.json as { requestId: string }).requestId);
      }
      await waitUntil(() => received.length === 2, 15_000);
      expect(received.sort()).toEqual(ids.map((id) => `to ${id}`));
      const outcomes = async (i: number): Promise<string[]> => {
        const path = `/api/endpoints/${ids[i] ?? ''}/requests/${requestIds[i] ?? ''}`;
        const r = await h.api('GET', path, { token: ADMIN_TOKEN });
        return (r.json as { forwarding: ForwardAttempt[] }).forwarding.map((a) => a.outcome);
      };
      await waitUntil(async () => (await outcomes(0)).length > 0 && (await outcomes(1)).length > 0);
      expect([await outcomes(0), await outcomes(1)]).toEqual([['delivered'], ['delivered']]);
    } finally {
      await worker?.close();
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
