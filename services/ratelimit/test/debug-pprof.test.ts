import { cpuProfileProblems, heapSnapshotProblems } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const CONFIG = `domain: web
descriptors:
  - key: client
    rate_limit: { unit: hour, requests_per_unit: 3 }
`;

function expectCpuProfile(profile: unknown): void {
  expect(cpuProfileProblems(profile)).toEqual([]);
}

describe('ratelimit debug port /debug/pprof/', () => {
  let h: Harness;
  const debugUrl = (path: string) => `http://127.0.0.1:${h.app.ports.debug}${path}`;

  beforeAll(async () => {
    h = await startHarness({ 'web.yaml': CONFIG });
  });
  afterAll(async () => {
    await h.close();
  });

  it('lists the profiles, from its own index and the debug index', async () => {
    const index = await h.get('/debug/pprof/', 'debug');
    expect(index.status).toBe(200);
    for (const path of ['/debug/pprof/profile', '/debug/pprof/heap', '/debug/pprof/runtime']) {
      expect(index.text).toContain(`${path}: `);
    }
    expect((await h.get('/', 'debug')).text).toContain('/debug/pprof/: ');
  });

  it('serves a CPU profile of the seconds asked, one at a time', async () => {
    const [a, b] = await Promise.all([
      fetch(debugUrl('/debug/pprof/profile?seconds=1')),
      fetch(debugUrl('/debug/pprof/profile?seconds=1')),
    ]);
    const [done, refused] = a.status === 200 ? [a, b] : [b, a];
    expect([done.status, refused.status]).toEqual([200, 409]);
    expect(await refused.json()).toEqual({
      error: 'a CPU profile is already being taken',
      code: 'PROFILE_IN_PROGRESS',
    });
    expect(done.headers.get('content-disposition')).toMatch(
      /^attachment; filename="cpu-\d+-\d+\.cpuprofile"$/,
    );
    expectCpuProfile(await done.json());
  });

  it('stops a profile whose client went away, so the next one can start', async () => {
    const leaving = new AbortController();
    const long = fetch(debugUrl('/debug/pprof/profile?seconds=60'), { signal: leaving.signal });
    await vi.waitFor(
      async () => expect((await fetch(debugUrl('/debug/pprof/profile?seconds=1'))).status).toBe(409),
      { timeout: 10_000, interval: 50 },
    );
    leaving.abort();
    await expect(long).rejects.toThrow();
    const next = await vi.waitFor(
      async () => {
        const res = await fetch(debugUrl('/debug/pprof/profile?seconds=1'));
        expect(res.status).toBe(200);
        return res;
      },
      { timeout: 10_000, interval: 50 },
    );
    expectCpuProfile(await next.json());
  });

  it.each(['0', '61', 'ten', '1.5', '', '0001'])(
    'refuses seconds=%s with 400 INVALID_ARGUMENT',
    async (seconds) => {
      const res = await fetch(debugUrl(`/debug/pprof/profile?seconds=${seconds}`));
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'seconds: expected a whole number from 1 to 60',
        code: 'INVALID_ARGUMENT',
      });
    },
  );

  it('streams a heap snapshot that parses as V8 writes it', async () => {
    const res = await fetch(debugUrl('/debug/pprof/heap'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="heap-\d+-\d+\.heapsnapshot"$/,
    );
    expect(Number(res.headers.get('x-heap-used-bytes'))).toBeGreaterThan(0);
    expect(heapSnapshotProblems(await res.json())).toEqual([]);
    // the test process's heap: tens of MB, written while it pauses, on a shared machine
  }, 90_000);

  it('reports event-loop delay percentiles, collections and memory', async () => {
    const figures = await vi.waitFor(
      async () => {
        const res = await fetch(debugUrl('/debug/pprof/runtime'));
        const body = (await res.json()) as {
          eventLoopDelayMs: Record<string, number> | null;
          gc: Record<string, { count: number; totalMs: number }>;
          memoryBytes: Record<string, number>;
        };
        expect(body.eventLoopDelayMs).not.toBeNull();
        return body;
      },
      { timeout: 5_000, interval: 50 },
    );
    const delay = figures.eventLoopDelayMs ?? {};
    expect(Object.keys(delay).sort()).toEqual(['max', 'mean', 'min', 'p50', 'p90', 'p99']);
    expect(delay['p50']).toBeLessThanOrEqual(delay['p99'] ?? NaN);
    for (const kind of Object.keys(figures.gc)) {
      expect(['minor', 'major', 'incremental', 'weakcb', 'other']).toContain(kind);
    }
    expect(figures.memoryBytes['heapUsed']).toBeGreaterThan(0);
  });

  it('refuses worker= in a process without workers with 400', async () => {
    const res = await fetch(debugUrl('/debug/pprof/profile?seconds=1&worker=1'));
    expect([res.status, await res.json()]).toEqual([
      400,
      { error: 'worker: this process has no worker processes', code: 'INVALID_ARGUMENT' },
    ]);
  });

  it('serves no profile on the public HTTP port', async () => {
    for (const path of ['/debug/pprof/', '/debug/pprof/profile?seconds=1', '/debug/pprof/heap']) {
      expect((await h.get(path)).status).toBe(404);
    }
  });

  it('stops a profile when the server closes, answering 503', async () => {
    const closing = await startHarness({ 'web.yaml': CONFIG });
    const url = `http://127.0.0.1:${closing.app.ports.debug}/debug/pprof/profile`;
    const long = fetch(`${url}?seconds=60`);
    await vi.waitFor(async () => expect((await fetch(`${url}?seconds=1`)).status).toBe(409), {
      timeout: 10_000,
      interval: 50,
    });
    await closing.close();
    const res = await long;
    expect([res.status, await res.json()]).toEqual([
      503,
      { error: 'server closing: CPU profile stopped', code: 'UNAVAILABLE' },
    ]);
  });
});
