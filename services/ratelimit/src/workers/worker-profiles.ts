import type { Worker } from 'node:cluster';
import { PassThrough, type Readable } from 'node:stream';
import { UnavailableError, type RuntimeFigures, type WorkerProfiles } from '@portcullis/kit';
import {
  HEAP_CHUNKS_IN_FLIGHT,
  profileMessage,
  isProfileAnswer,
  type ProfileAnswer,
  type ProfileRequest,
  type Untagged,
} from './profile-messages.js';

/** How long a worker has to send its runtime figures, and past a CPU profile's seconds to send the profile. */
const ANSWER_TIMEOUT_MS = 2000;
const PROFILE_GRACE_MS = 10_000;

/** What to do with a worker's answer to one request; `undefined`: the worker is gone or did not answer. */
type OnAnswer = (m: ProfileAnswer | undefined) => void;

/**
 * The primary's side of `/debug/pprof/?worker=<id>` (kit's `WorkerProfiles`): asks the running worker `id`
 * for its CPU profile, heap snapshot or runtime figures over the cluster's IPC channel (profile-answers.ts
 * takes them there). A worker that exits or stops answering fails the request with 503 `UNAVAILABLE`.
 */
export class WorkerProfileRequests implements WorkerProfiles {
  private readonly workers = new Map<number, Worker>();
  private readonly pending = new Map<number, { worker: number; on: OnAnswer }>();
  private nextId = 0;

  attach(worker: Worker): void {
    this.workers.set(worker.id, worker);
    worker.on('message', (m: unknown) => {
      if (isProfileAnswer(m)) this.pending.get(m.id)?.on(m);
    });
    worker.once('exit', () => {
      this.workers.delete(worker.id);
      for (const p of [...this.pending.values()]) if (p.worker === worker.id) p.on(undefined);
    });
  }

  ids(): number[] {
    return [...this.workers.keys()].sort((a, b) => a - b);
  }

  runtime(worker: number): Promise<RuntimeFigures> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.pending.get(id)?.on(undefined), ANSWER_TIMEOUT_MS);
      const id = this.open(worker, (m) => {
        clearTimeout(timer);
        this.pending.delete(id);
        if (m?.kind === 'runtime') resolve(m.figures);
        else reject(unavailable(worker, m));
      });
      this.send(worker, { kind: 'runtime', id });
    });
  }

  cpuProfile(worker: number, seconds: number, signal: AbortSignal): Promise<object> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.pending.get(id)?.on(undefined), seconds * 1000 + PROFILE_GRACE_MS);
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', stop);
        this.pending.delete(id);
      };
      const stop = (): void => {
        finish();
        this.send(worker, { kind: 'stop', id });
        // kit's profile route aborts with an Error: the server closing (503) or its client gone
        reject(signal.reason as Error);
      };
      const id = this.open(worker, (m) => {
        finish();
        if (m?.kind === 'profile') resolve(m.profile);
        else reject(unavailable(worker, m));
      });
      signal.addEventListener('abort', stop);
      if (signal.aborted) stop();
      else this.send(worker, { kind: 'profile', id, seconds });
    });
  }

  heapSnapshot(worker: number): Promise<{ stream: Readable; heapUsedBytes: number }> {
    return new Promise((resolve, reject) => {
      const stream = new PassThrough();
      const more = (): void => this.send(worker, { kind: 'more', id });
      let started = false;
      const id = this.open(worker, (m) => {
        if (m?.kind === 'heap-chunk') {
          if (stream.write(m.text)) more();
          else stream.once('drain', more);
        } else if (m?.kind === 'heap-start' && !started) {
          started = true;
          resolve({ stream, heapUsedBytes: m.heapUsedBytes });
          for (let i = 0; i < HEAP_CHUNKS_IN_FLIGHT; i++) more();
        } else {
          this.pending.delete(id);
          if (m?.kind === 'heap-end') stream.end();
          else if (started) stream.destroy(unavailable(worker, m));
          else reject(unavailable(worker, m));
        }
      });
      // the client went away (or the answer ended): the worker stops writing
      stream.once('close', () => {
        if (this.pending.delete(id)) this.send(worker, { kind: 'stop', id });
      });
      this.send(worker, { kind: 'heap', id });
    });
  }

  private open(worker: number, on: OnAnswer): number {
    const id = this.nextId++;
    this.pending.set(id, { worker, on });
    return id;
  }

  /** Sends to `worker`; one whose channel is closed fails the request it was for. */
  private send(worker: number, m: Untagged<ProfileRequest>): void {
    const w = this.workers.get(worker);
    const lost = (): void => this.pending.get(m.id)?.on(undefined);
    if (!w?.isConnected()) {
      lost();
      return;
    }
    w.send(profileMessage<ProfileRequest>(m), (err) => {
      if (err) lost();
    });
  }
}

function unavailable(worker: number, m: ProfileAnswer | undefined): UnavailableError {
  return new UnavailableError(
    m?.kind === 'failed' ? `worker ${worker}: ${m.message}` : `worker ${worker} is gone or did not answer`,
  );
}
