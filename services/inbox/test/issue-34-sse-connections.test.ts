import { request } from 'node:http';
import {
  redisCli,
  startRedis,
  startRedisCluster,
  startRedisSentinelSet,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, waitUntil, type InboxHarness } from './harness.js';
import { openSse, type SseClient } from './sse-client.js';

// Issue 34, item 7: every live stream of a process is read through one Redis connection (one XREAD over all
// watched endpoints), not one per endpoint; and streams are capped per process and per client address.

const STREAMS = 30;

/**
 * Clients of these nodes but the deployment's own (sentinels, replicas) and the counting `redis-cli`: the
 * inbox's connections.
 */
async function countClients(nodes: readonly RedisServer[]): Promise<number> {
  const isOurs = (line: string): boolean =>
    !/ name=sentinel-/.test(line) && !/ flags=\w*S/.test(line) && !/ cmd=client\|list/.test(line);
  const counts = await Promise.all(
    nodes.map(async (n) => (await redisCli(n.port, 'CLIENT', 'LIST')).split('\n').filter(isOurs).length),
  );
  return counts.reduce((a, b) => a + b, 0);
}

/** The count once connections made at start-up have settled: the same twice, 200 ms apart (or after 5 s). */
async function settledCount(nodes: readonly RedisServer[]): Promise<number> {
  let last = await countClients(nodes);
  for (let i = 0; i < 25; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const now = await countClients(nodes);
    if (now === last) break;
    last = now;
  }
  return last;
}

const isReady = (c: SseClient): boolean => c.events.some((e) => e.event === 'ready');

/**
 * Opens a stream on each of `STREAMS` new endpoints, checks the Redis clients grew by at most `extra`, sends
 * one capture to each endpoint and checks it reached its stream, then closes them all.
 */
async function streamMany(h: InboxHarness, nodes: readonly RedisServer[], extra: number): Promise<void> {
  const baseline = await settledCount(nodes);
  const endpoints = await Promise.all(
    Array.from({ length: STREAMS }, (_, i) => h.createEndpoint(`live ${i}`)),
  );
  const streams = await Promise.all(
    endpoints.map((ep) => openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: ep.token })),
  );
  try {
    await waitUntil(() => streams.every(isReady), 15_000);
    expect(h.app.hub.liveEndpoints()).toHaveLength(STREAMS);
    expect(await countClients(nodes)).toBeLessThanOrEqual(baseline + extra);
    const sent = await Promise.all(
      endpoints.map(async (ep) => {
        const r = await h.send('POST', `/api/hook/${ep.id}/live`, { body: ep.id });
        return (r.json as { requestId: string }).requestId;
      }),
    );
    await waitUntil(() => streams.every((s, i) => s.requestIds().includes(sent[i] ?? '')), 15_000);
    expect(await countClients(nodes)).toBeLessThanOrEqual(baseline + extra);
  } finally {
    for (const s of streams) s.close();
  }
  await waitUntil(() => h.app.hub.liveEndpoints().length === 0);
}

describe('live streams on one Redis', () => {
  let redis: RedisServer;
  let h: InboxHarness;
  beforeAll(async () => {
    redis = await startRedis();
    h = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
  });
  afterAll(async () => {
    await h.close();
    await redis.stop();
  });

  it('reads 30 endpoints through one connection (and one for forwarding events), delivering to each', async () => {
    await streamMany(h, [redis], 2);
  });

  it('still delivers after a stream joins and leaves while the read waits', async () => {
    const quiet = await h.createEndpoint('quiet');
    const first = await openSse(`${h.url}/api/endpoints/${quiet.id}/stream`, { token: quiet.token });
    await waitUntil(() => isReady(first));
    const ep = await h.createEndpoint('joins');
    const s = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: ep.token });
    await waitUntil(() => isReady(s));
    first.close();
    await waitUntil(() => !h.app.hub.liveEndpoints().includes(quiet.id));
    const { requestId } = (await h.send('POST', `/api/hook/${ep.id}/live`, { body: 'x' })).json as {
      requestId: string;
    };
    await s.waitFor(() => s.requestIds().includes(requestId));
    s.close();
  });
});

describe('live streams on Redis Sentinel', () => {
  let set: Awaited<ReturnType<typeof startRedisSentinelSet>>;
  let h: InboxHarness;
  beforeAll(async () => {
    set = await startRedisSentinelSet();
    h = await startInboxHarness({ INBOX_REDIS_TYPE: 'sentinel', INBOX_REDIS_URL: set.url });
  }, 60_000);
  afterAll(async () => {
    await h.close();
    await set.stop();
  });

  it('reads 30 endpoints through one connection to the master', { timeout: 60_000 }, async () => {
    await streamMany(h, [set.master], 2);
  });
});

describe('live streams on Redis Cluster', () => {
  const MASTERS = 3;
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let h: InboxHarness;
  beforeAll(async () => {
    cluster = await startRedisCluster(MASTERS);
    h = await startInboxHarness({ INBOX_REDIS_TYPE: 'cluster', INBOX_REDIS_URL: cluster.url });
  }, 60_000);
  afterAll(async () => {
    await h.close();
    await cluster.stop();
  });

  it('reads 30 endpoints through connections bounded by the masters', { timeout: 60_000 }, async () => {
    // the reader and the forwarding events' subscriber: a connection to each master at most
    await streamMany(h, cluster.nodes, 2 * MASTERS);
  });
});

describe('live stream caps', () => {
  let h: InboxHarness;
  beforeAll(async () => {
    h = await startInboxHarness({
      INBOX_SSE_MAX_STREAMS: '3',
      INBOX_SSE_MAX_STREAMS_PER_ADDRESS: '2',
      INBOX_TRUST_PROXY: 'true',
    });
  });
  afterAll(() => h.close());

  it('refuses streams beyond the bound per address and per process, and frees a closed one', async () => {
    const ep = await h.createEndpoint();
    const from = (address: string): Record<string, string> => ({ 'x-forwarded-for': address });
    const open = (address: string): Promise<SseClient> =>
      openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: ep.token, headers: from(address) });
    const refusal = (address: string): Promise<{ status: number; body?: unknown }> =>
      new Promise((resolve, reject) => {
        const headers = { authorization: `Bearer ${ep.token}`, ...from(address) };
        const req = request(`${h.url}/api/endpoints/${ep.id}/stream`, { headers }, (res) => {
          const status = res.statusCode ?? 0;
          if (status === 200) {
            req.destroy(); // a stream opened: not refused
            return resolve({ status });
          }
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        req.on('error', reject);
        req.end();
      });
    const a1 = await open('10.0.0.1');
    const a2 = await open('10.0.0.1');
    expect([a1.status, a2.status]).toEqual([200, 200]);
    expect(await refusal('10.0.0.1')).toEqual({
      status: 429,
      body: {
        error: 'at most 2 live streams may be open from one address: close one first',
        code: 'TOO_MANY_STREAMS',
      },
    });
    const b1 = await open('10.0.0.2');
    expect(b1.status).toBe(200);
    expect(await refusal('10.0.0.3')).toEqual({
      status: 503,
      body: {
        error: 'this inbox process has 3 live streams open, its most: retry later',
        code: 'STREAMS_FULL',
      },
    });

    a1.close();
    let c1: SseClient | undefined;
    await waitUntil(async () => {
      const s = await open('10.0.0.3');
      if (s.status === 200) c1 = s;
      else s.close();
      return s.status === 200;
    });
    const metrics = (await h.send('GET', '/metrics')).body.toString();
    expect(metrics).toMatch(/^portcullis_inbox_sse_refused_total\{reason="address"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^portcullis_inbox_sse_refused_total\{reason="process"[^}]*\} [1-9]\d*$/m);
    for (const s of [a2, b1, c1]) s?.close();
  });
});
