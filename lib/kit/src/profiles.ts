import { Session } from 'node:inspector/promises';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSnapshot } from 'node:v8';
import { InvalidArgumentError, ProfileInProgressError, UnavailableError } from './errors.js';
import type { HttpApp } from './http-app.js';
import type { Logger } from './log.js';
import { startRuntimeMonitor, type RuntimeFigures } from './runtime-figures.js';

/** `/debug/pprof/profile` without `seconds`; Go's pprof takes 30, shorter keeps the cost of a stray request low. */
export const DEFAULT_PROFILE_SECONDS = 10;
export const MAX_PROFILE_SECONDS = 60;

const PATHS: Readonly<Record<string, string>> = {
  '/debug/pprof/profile': `V8 CPU profile (.cpuprofile) over ?seconds=1..${MAX_PROFILE_SECONDS} (default ${DEFAULT_PROFILE_SECONDS})`,
  '/debug/pprof/heap': 'V8 heap snapshot (.heapsnapshot); pauses the process while it is written',
  '/debug/pprof/runtime': 'event-loop delay, garbage collections and memory, as JSON',
};

/**
 * The profiles of other processes this one speaks for (the ratelimit primary's workers), which a request names
 * with `worker=<id>`; each call takes the profile in that process and hands it back.
 */
export interface WorkerProfiles {
  /** The ids `worker=` may name, ascending. */
  ids(): number[];
  /** Rejects with `signal.reason` when it aborts, with `UnavailableError` when the worker goes away. */
  cpuProfile(id: number, seconds: number, signal: AbortSignal): Promise<object>;
  /** The snapshot's text, streamed as the worker writes it, and the worker's used heap when it began. */
  heapSnapshot(id: number): Promise<{ stream: Readable; heapUsedBytes: number }>;
  runtime(id: number): Promise<RuntimeFigures>;
}

type Kind = 'profile' | 'heap';
// per process, not per app: V8 has one profiler and one heap, whichever server asks; a worker has its own
const taking = new Set<string>();

function claim(kind: Kind, worker: number | undefined): () => void {
  const key = worker === undefined ? kind : `${kind}:${worker}`;
  if (taking.has(key)) {
    const what = kind === 'profile' ? 'CPU profile' : 'heap snapshot';
    throw new ProfileInProgressError(
      `a ${what}${worker === undefined ? '' : ` of worker ${worker}`} is already being taken`,
    );
  }
  taking.add(key);
  return () => taking.delete(key);
}

/**
 * `worker` of a `/debug/pprof/` path: `undefined` (this process) when absent; throws `InvalidArgumentError`
 * unless one of `ids`.
 */
export function parseWorker(value: unknown, ids: readonly number[]): number | undefined {
  if (value === undefined) return undefined;
  const id = typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : NaN;
  if (!ids.includes(id)) {
    throw new InvalidArgumentError(
      ids.length === 0
        ? 'worker: this process has no worker processes'
        : `worker: expected one of ${ids.join(', ')}`,
    );
  }
  return id;
}

/** `seconds` of `/debug/pprof/profile`; throws `InvalidArgumentError` unless a whole number in bounds. */
export function parseProfileSeconds(value: unknown): number {
  if (value === undefined) return DEFAULT_PROFILE_SECONDS;
  const seconds = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= 1 && seconds <= MAX_PROFILE_SECONDS)) {
    throw new InvalidArgumentError(`seconds: expected a whole number from 1 to ${MAX_PROFILE_SECONDS}`);
  }
  return seconds;
}

/** Samples this thread's CPU for `seconds` (or until `signal` aborts, which rejects) and returns the V8 profile. */
export async function takeCpuProfile(seconds: number, signal: AbortSignal): Promise<object> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const slept = await sleep(seconds * 1000, true, { signal }).catch(() => false);
    const { profile } = await session.post('Profiler.stop');
    if (!slept) throw signal.reason;
    return profile;
  } finally {
    session.disconnect();
  }
}

/**
 * Node's answer to Go's `/debug/pprof/` on `app`: an index, a CPU profile, a heap snapshot and runtime figures.
 * A debug port only: a profile slows the process and a heap snapshot holds every secret in memory. One CPU
 * profile and one heap snapshot at a time per process (else 409 `PROFILE_IN_PROGRESS`); a profile stops when
 * its client goes away or the app closes. With `workers`, `?worker=<id>` takes them in that worker instead of
 * this process. The app's error mapper must answer kit's `PROFILE_ERRORS`.
 */
export function addProfileRoutes(app: HttpApp, log: Logger, o: { workers?: WorkerProfiles } = {}): void {
  const monitor = startRuntimeMonitor();
  const closing = new AbortController();
  const workerOf = (request: { query: unknown }): number | undefined =>
    parseWorker((request.query as Record<string, unknown>)['worker'], o.workers?.ids() ?? []);
  app.addHook('preClose', () => {
    closing.abort(new UnavailableError('server closing: CPU profile stopped'));
    monitor.stop();
  });
  app.get('/debug/pprof/', (_req, reply) => {
    const lines = Object.entries(PATHS).map(([path, what]) => `${path}: ${what}`);
    if (o.workers) {
      lines.push(`?worker=<id>: the same of that worker process, one of ${o.workers.ids().join(', ')}`);
    }
    return reply.type('text/plain; charset=utf-8').send(`${lines.join('\n')}\n`);
  });
  app.get('/debug/pprof/runtime', (request) => {
    const worker = workerOf(request);
    return worker === undefined ? monitor.figures() : o.workers?.runtime(worker);
  });
  app.get('/debug/pprof/profile', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const seconds = parseProfileSeconds(query['seconds']);
    const worker = workerOf(request);
    const release = claim('profile', worker);
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort(new Error('client went away')));
    const signal = AbortSignal.any([gone.signal, closing.signal]);
    let profile: object;
    try {
      log.info({ seconds, worker }, 'CPU profile started');
      profile = await (worker === undefined || !o.workers
        ? takeCpuProfile(seconds, signal)
        : o.workers.cpuProfile(worker, seconds, signal));
    } finally {
      release();
    }
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="cpu-${fileTag(worker)}-${Date.now()}.cpuprofile"`)
      .send(JSON.stringify(profile));
  });
  app.get('/debug/pprof/heap', async (request, reply) => {
    const worker = workerOf(request);
    const release = claim('heap', worker);
    let snapshot: { stream: Readable; heapUsedBytes: number };
    try {
      snapshot =
        worker === undefined || !o.workers ? takeHeapSnapshot(log) : await o.workers.heapSnapshot(worker);
    } catch (err: unknown) {
      release();
      throw err;
    }
    snapshot.stream.once('close', release);
    return reply
      .type('application/json')
      .header(
        'content-disposition',
        `attachment; filename="heap-${fileTag(worker)}-${Date.now()}.heapsnapshot"`,
      )
      .header('x-heap-used-bytes', String(snapshot.heapUsedBytes))
      .send(snapshot.stream);
  });
}

/** This process's heap snapshot, streamed as V8 writes it; warns first, for the pause and the size. */
export function takeHeapSnapshot(log: Logger): { stream: Readable; heapUsedBytes: number } {
  const { heapUsed } = process.memoryUsage();
  log.warn(
    { heapUsedBytes: heapUsed },
    'heap snapshot: the process pauses while it is written, the file outgrows the heap',
  );
  return { stream: getHeapSnapshot(), heapUsedBytes: heapUsed };
}

/** The file name's process part: this process's pid, or `worker<id>`. */
function fileTag(worker: number | undefined): string {
  return worker === undefined ? String(process.pid) : `worker${worker}`;
}
