import { request } from 'node:http';
import {
  cpuProfileProblems,
  heapSnapshotProblems,
  startRedis,
  waitUntil,
  type CpuProfile,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from './service-process.js';

type Service = Awaited<ReturnType<typeof startService>>;

/** One decision over `/json` on a connection of its own: node:cluster gives each to the next worker. */
function jsonDecision(p: Service, value: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: p.ports.http, path: '/json', method: 'POST', agent: false },
      (res) => res.resume().on('end', resolve),
    );
    req.on('error', reject);
    req.end(JSON.stringify({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value }] }] }));
  });
}

/** Frames of the service's decisions (`service.ts`, `limiter/`), by function name, that `profile` sampled. */
function decisionFrames(profile: CpuProfile): string[] {
  const frames = profile.nodes
    .map((n) => n.callFrame)
    .filter((f) => /\/services\/ratelimit\/src\/(service\.ts|limiter\/)/.test(f.url));
  return [...new Set(frames.map((f) => f.functionName))];
}

describe('RATELIMIT_WORKERS=2: /debug/pprof/...?worker=<id>', () => {
  let redis: RedisServer;
  let p: Service;
  const debug = (path: string): Promise<Response> => fetch(`http://127.0.0.1:${p.ports.debug}${path}`);

  beforeAll(async () => {
    redis = await startRedis();
    // three processes loading TypeScript on a shared machine: their start is given minutes
    p = await startService(
      { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address, RATELIMIT_WORKERS: '2' },
      180_000,
    );
    await waitUntil(async () => (await debug('/health')).status === 200, 60_000);
  }, 300_000);
  afterAll(async () => {
    await p.stop();
    await redis.stop();
  });

  it('lists the workers, and refuses one that is not running with 400 naming those that are', async () => {
    const index = await (await debug('/debug/pprof/')).text();
    expect(index).toContain('?worker=<id>: the same of that worker process, one of 1, 2\n');
    for (const path of ['profile?seconds=1&worker=3', 'heap?worker=0', 'runtime?worker=one']) {
      const res = await debug(`/debug/pprof/${path}`);
      expect([res.status, await res.json()]).toEqual([
        400,
        { error: 'worker: expected one of 1, 2', code: 'INVALID_ARGUMENT' },
      ]);
    }
  });

  it("profiles the worker named, whose profile has the decisions' frames; the primary's has none", async () => {
    let driving = true;
    const drive = async (lane: number): Promise<void> => {
      for (let i = 0; driving; i++) await jsonDecision(p, `${lane}-${i}`);
    };
    const load = Promise.all([0, 1, 2].map(drive));
    const [w1, w1again, w2, primary] = await Promise.all(
      ['worker=1', 'worker=1', 'worker=2', ''].map((w) => debug(`/debug/pprof/profile?seconds=2&${w}`)),
    );
    driving = false;
    await load;
    expect([w1, w1again, w2, primary].map((r) => r!.status).sort()).toEqual([200, 200, 200, 409]);
    const [done1, refused] = w1!.status === 200 ? [w1!, w1again!] : [w1again!, w1!];
    expect(await refused.json()).toEqual({
      error: 'a CPU profile of worker 1 is already being taken',
      code: 'PROFILE_IN_PROGRESS',
    });
    expect(done1.headers.get('content-disposition')).toMatch(
      /^attachment; filename="cpu-worker1-\d+\.cpuprofile"$/,
    );
    const profiles = (await Promise.all([done1, w2!, primary!].map((r) => r.json()))) as CpuProfile[];
    for (const profile of profiles) expect(cpuProfileProblems(profile)).toEqual([]);
    const [one, two, ofPrimary] = profiles.map(decisionFrames);
    expect(one).not.toEqual([]);
    expect(two).not.toEqual([]);
    expect(ofPrimary).toEqual([]);
  });

  it("streams a worker's heap snapshot, and gives its runtime figures", async () => {
    const res = await debug('/debug/pprof/heap?worker=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="heap-worker2-\d+\.heapsnapshot"$/,
    );
    expect(Number(res.headers.get('x-heap-used-bytes'))).toBeGreaterThan(0);
    expect(heapSnapshotProblems(await res.json())).toEqual([]);
    const runtime = await debug('/debug/pprof/runtime?worker=1');
    const figures = (await runtime.json()) as { memoryBytes: { heapUsed: number }; gc: object };
    expect(runtime.status).toBe(200);
    expect(figures.memoryBytes.heapUsed).toBeGreaterThan(0);
    // a snapshot of tens of MB, written while the worker pauses, on a shared machine
  }, 90_000);

  it("stops a worker's heap snapshot when its client goes away, so the next one can start", async () => {
    const leaving = new AbortController();
    const first = await fetch(`http://127.0.0.1:${p.ports.debug}/debug/pprof/heap?worker=1`, {
      signal: leaving.signal,
    });
    expect(first.status).toBe(200);
    // a piece arrived; the rest waits for a client that reads no more (far more than the sockets buffer)
    await first.body?.getReader().read();
    expect((await debug('/debug/pprof/heap?worker=1')).status).toBe(409);
    leaving.abort();
    await waitUntil(() => p.output().includes('stopped by the primary'), 20_000);
    const next = await debug('/debug/pprof/heap?worker=1');
    expect(next.status).toBe(200);
    // read to the end: a body left unread holds its connection open, and the debug port's close waits for it
    expect(heapSnapshotProblems(await next.json())).toEqual([]);
  }, 120_000);
});
