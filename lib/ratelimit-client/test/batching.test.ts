import { MAX_BATCHED_REQUESTS } from '../src/call-batcher.js';
import { describe, expect, it } from 'vitest';
import { useRlsServer, type RlsServer } from './rls-server.js';

const user = (value: string) => ({ entries: [{ key: 'user', value }] });
const sentUsers = (r: RlsServer, from: number) =>
  r.requests.slice(from).map((q) => ({
    domain: q.domain,
    users: (q.descriptors ?? []).map((d) => d.entries?.[0]?.value),
  }));

describe('requests of one event-loop turn share a call', () => {
  const { rls: server, open } = useRlsServer();

  it("merges one domain's requests in the order made, and hands each its own statuses", async () => {
    const client = open();
    const before = server().requests.length;
    const [alice, blocked, both] = await Promise.all([
      client.decide({ domain: 'web', descriptors: [user('alice')] }),
      client.decide({ domain: 'web', descriptors: [user('blocked')] }),
      client.decide({ domain: 'web', descriptors: [user('bob'), user('carol')] }),
    ]);
    expect(sentUsers(server(), before)).toEqual([
      { domain: 'web', users: ['alice', 'blocked', 'bob', 'carol'] },
    ]);
    expect(alice).toMatchObject({ allowed: true, overLimit: false });
    expect(alice.statuses).toEqual([
      { code: 'OK', limitRemaining: 9, requestsPerUnit: 10, unit: 'MINUTE', durationUntilResetSeconds: 30 },
    ]);
    expect(alice.headers).toContainEqual({ key: 'RateLimit-Remaining', value: '9' });
    expect(blocked).toMatchObject({ allowed: false, overLimit: true });
    expect(blocked.statuses.map((s) => s.code)).toEqual(['OVER_LIMIT']);
    expect(blocked.headers).toContainEqual({ key: 'RateLimit-Reset', value: '42' });
    expect(both).toMatchObject({ allowed: true, overLimit: false });
    expect(both.statuses.map((s) => s.code)).toEqual(['OK', 'OK']);
    expect(client.stats()).toMatchObject({ calls: 3, failures: 0 });
  });

  it('keeps domains and request hitsAddend apart, and calls from later turns apart', async () => {
    const client = open();
    const before = server().requests.length;
    await Promise.all([
      client.decide({ domain: 'web', descriptors: [user('a')] }),
      client.decide({ domain: 'api', descriptors: [user('b')] }),
      client.decide({ domain: 'web', descriptors: [user('c')], hitsAddend: 3 }),
      client.decide({ domain: 'web', descriptors: [user('d')] }),
    ]);
    await client.decide({ domain: 'web', descriptors: [user('e')] });
    expect(sentUsers(server(), before)).toEqual([
      { domain: 'web', users: ['a', 'd'] },
      { domain: 'api', users: ['b'] },
      { domain: 'web', users: ['c'] },
      { domain: 'web', users: ['e'] },
    ]);
    expect(server().requests.at(-2)?.hitsAddend).toBe(3);
  });

  it('sends alone a request with its own per-descriptor hitsAddend or without descriptors', async () => {
    const client = open();
    const before = server().requests.length;
    const answers = await Promise.all([
      client.decide({ domain: 'web', descriptors: [{ ...user('a'), hitsAddend: 4 }] }),
      client.decide({ domain: 'web', descriptors: [user('b')] }),
      client.decide({ domain: 'web', descriptors: [user('c')] }),
      client.decide({ domain: 'web', descriptors: [] }),
    ]);
    expect(sentUsers(server(), before)).toEqual([
      { domain: 'web', users: ['a'] },
      { domain: 'web', users: [] },
      { domain: 'web', users: ['b', 'c'] },
    ]);
    expect(answers[0].statuses[0]?.limitRemaining).toBe(6);
  });

  it('splits a turn of more than the most requests one call carries', async () => {
    const client = open();
    const before = server().requests.length;
    const n = MAX_BATCHED_REQUESTS + 3;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => client.decide({ domain: 'web', descriptors: [user(`u${i}`)] })),
    );
    expect(sentUsers(server(), before).map((r) => r.users.length)).toEqual([MAX_BATCHED_REQUESTS, 3]);
    expect(answers.every((d) => d.allowed)).toBe(true);
  });

  it('asks again one by one when the service answers with its own headers, and stops merging', async () => {
    const client = open();
    const before = server().requests.length;
    const answers = await Promise.all([
      client.decide({ domain: 'service-headers', descriptors: [user('a')] }),
      client.decide({ domain: 'service-headers', descriptors: [user('b')] }),
    ]);
    await Promise.all([
      client.decide({ domain: 'web', descriptors: [user('c')] }),
      client.decide({ domain: 'web', descriptors: [user('d')] }),
    ]);
    expect(sentUsers(server(), before)).toEqual([
      { domain: 'service-headers', users: ['a', 'b'] },
      { domain: 'service-headers', users: ['a'] },
      { domain: 'service-headers', users: ['b'] },
      { domain: 'web', users: ['c'] },
      { domain: 'web', users: ['d'] },
    ]);
    for (const d of answers) expect(d.headers).toContainEqual({ key: 'x-served-by', value: 'rls-test' });
  });

  it('answers every request of an undecided or failed call by the failure mode', async () => {
    const client = open({ failureMode: 'allow' });
    const undecided = await Promise.all([
      client.decide({ domain: 'undecided', descriptors: [user('a')] }),
      client.decide({ domain: 'undecided', descriptors: [user('b')] }),
    ]);
    expect(undecided.map((d) => d.failedOpen)).toEqual([true, true]);
    expect(client.stats().failuresByReason).toEqual({ UNDECIDED: 2 });

    server().delayMs = 500;
    const late = open({ timeoutMs: 100 });
    try {
      const answers = await Promise.all([
        late.decide({ domain: 'web', descriptors: [user('a')] }),
        late.decide({ domain: 'web', descriptors: [user('b')] }),
      ]);
      expect(answers.map((d) => [d.allowed, d.failedOpen])).toEqual([
        [false, true],
        [false, true],
      ]);
      expect(late.stats()).toMatchObject({
        calls: 2,
        failures: 2,
        failuresByReason: { DEADLINE_EXCEEDED: 2 },
      });
    } finally {
      server().delayMs = 0;
    }
  });

  it('sends every request alone with batch: false', async () => {
    const client = open({ batch: false });
    const before = server().requests.length;
    await Promise.all([
      client.decide({ domain: 'web', descriptors: [user('a')] }),
      client.decide({ domain: 'web', descriptors: [user('b')] }),
    ]);
    expect(sentUsers(server(), before)).toEqual([
      { domain: 'web', users: ['a'] },
      { domain: 'web', users: ['b'] },
    ]);
  });
});
