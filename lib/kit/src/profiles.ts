import { Session } from 'node:inspector/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapSnapshot } from 'node:v8';
import { InvalidArgumentError, ProfileInProgressError, UnavailableError } from './errors.js';
import type { HttpApp } from './http-app.js';
import type { Logger } from './log.js';
import { startRuntimeMonitor } from './runtime-figures.js';

/** `/debug/pprof/profile` without `seconds`; Go's pprof takes 30, shorter keeps the cost of a stray request low. */
export const DEFAULT_PROFILE_SECONDS = 10;
export const MAX_PROFILE_SECONDS = 60;

const PATHS: Readonly<Record<string, string>> = {
  '/debug/pprof/profile': `V8 CPU profile (.cpuprofile) over ?seconds=1..${MAX_PROFILE_SECONDS} (default ${DEFAULT_PROFILE_SECONDS})`,
  '/debug/pprof/heap': 'V8 heap snapshot (.heapsnapshot); pauses the process while it is written',
  '/debug/pprof/runtime': 'event-loop delay, garbage collections and memory, as JSON',
};

type Kind = 'profile' | 'heap';
// per process, not per app: V8 has one profiler and one heap, whichever server asks
const taking = new Set<Kind>();

function claim(kind: Kind): () => void {
  if (taking.has(kind)) {
    throw new ProfileInProgressError(
      `a ${kind === 'profile' ? 'CPU profile' : 'heap snapshot'} is already being taken`,
    );
  }
  taking.add(kind);
  return () => taking.delete(kind);
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
async function takeCpuProfile(seconds: number, signal: AbortSignal): Promise<object> {
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
 * its client goes away or the app closes. The app's error mapper must answer kit's `PROFILE_ERRORS`.
 */
export function addProfileRoutes(app: HttpApp, log: Logger): void {
  const monitor = startRuntimeMonitor();
  const closing = new AbortController();
  app.addHook('preClose', () => {
    closing.abort(new UnavailableError('server closing: CPU profile stopped'));
    monitor.stop();
  });
  app.get('/debug/pprof/', (_req, reply) => {
    const lines = Object.entries(PATHS).map(([path, what]) => `${path}: ${what}`);
    return reply.type('text/plain; charset=utf-8').send(`${lines.join('\n')}\n`);
  });
  app.get('/debug/pprof/runtime', () => monitor.figures());
  app.get('/debug/pprof/profile', async (request, reply) => {
    const seconds = parseProfileSeconds((request.query as Record<string, unknown>)['seconds']);
    const release = claim('profile');
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort(new Error('client went away')));
    let profile: object;
    try {
      log.info({ seconds }, 'CPU profile started');
      profile = await takeCpuProfile(seconds, AbortSignal.any([gone.signal, closing.signal]));
    } finally {
      release();
    }
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="cpu-${process.pid}-${Date.now()}.cpuprofile"`)
      .send(JSON.stringify(profile));
  });
  app.get('/debug/pprof/heap', (_req, reply) => {
    const release = claim('heap');
    const { heapUsed } = process.memoryUsage();
    log.warn(
      { heapUsedBytes: heapUsed },
      'heap snapshot: the process pauses while it is written, the file outgrows the heap',
    );
    let snapshot;
    try {
      snapshot = getHeapSnapshot();
    } catch (err: unknown) {
      release();
      throw err;
    }
    snapshot.once('close', release);
    return reply
      .type('application/json')
      .header('content-disposition', `attachment; filename="heap-${process.pid}-${Date.now()}.heapsnapshot"`)
      .header('x-heap-used-bytes', String(heapUsed))
      .send(snapshot);
  });
}
