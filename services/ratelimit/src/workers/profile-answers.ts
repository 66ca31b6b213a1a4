import { StringDecoder } from 'node:string_decoder';
import { startRuntimeMonitor, takeCpuProfile, takeHeapSnapshot, type Logger } from '@portcullis/kit';
import {
  HEAP_CHUNK_BYTES,
  isProfileRequest,
  profileMessage,
  type ProfileAnswer,
  type Untagged,
} from './profile-messages.js';

/** The `more`s a heap snapshot in flight may still send pieces for, and who waits for the next one. */
interface Credit {
  granted: number;
  wake?: () => void;
}

/**
 * A worker's side of `/debug/pprof/?worker=<id>`: takes the CPU profile, heap snapshot or runtime figures the
 * primary asks for in this process and sends them back, the snapshot piece by piece as the primary asks for
 * more. The primary allows one profile and one snapshot at a time per worker, and says `stop` when its client
 * goes away.
 */
export function answerProfileRequests(log: Logger): void {
  const monitor = startRuntimeMonitor();
  const stops = new Map<number, AbortController>();
  const credits = new Map<number, Credit>();
  const begin = (id: number): AbortSignal => {
    const stop = new AbortController();
    stops.set(id, stop);
    return stop.signal;
  };
  const fail = (id: number, err: unknown): void => {
    log.warn({ err }, 'profile for the primary failed');
    send({ kind: 'failed', id, message: err instanceof Error ? err.message : String(err) });
  };
  process.on('message', (m: unknown) => {
    if (!isProfileRequest(m)) return;
    const { id } = m;
    switch (m.kind) {
      case 'runtime':
        send({ kind: 'runtime', id, figures: monitor.figures() });
        return;
      case 'profile':
        takeCpuProfile(m.seconds, begin(id))
          .then((profile) => send({ kind: 'profile', id, profile }))
          .catch((err: unknown) => fail(id, err))
          .finally(() => stops.delete(id));
        return;
      case 'heap': {
        const credit: Credit = { granted: 0 };
        credits.set(id, credit);
        sendHeapSnapshot({ id, log, credit, signal: begin(id) })
          .catch((err: unknown) => fail(id, err))
          .finally(() => {
            stops.delete(id);
            credits.delete(id);
          });
        return;
      }
      case 'more': {
        const credit = credits.get(id);
        if (!credit) return;
        credit.granted += 1;
        credit.wake?.();
        return;
      }
      case 'stop':
        stops.get(id)?.abort(new Error('stopped by the primary'));
        return;
      default: {
        const _: never = m;
        return _;
      }
    }
  });
}

async function sendHeapSnapshot(o: { id: number; log: Logger; credit: Credit; signal: AbortSignal }) {
  const { stream, heapUsedBytes } = takeHeapSnapshot(o.log);
  try {
    send({ kind: 'heap-start', id: o.id, heapUsedBytes });
    // pieces may split a character: the decoder carries its bytes over to the next piece
    const decoder = new StringDecoder('utf8');
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; at += HEAP_CHUNK_BYTES) {
        await granted(o.credit, o.signal);
        send({
          kind: 'heap-chunk',
          id: o.id,
          text: decoder.write(chunk.subarray(at, at + HEAP_CHUNK_BYTES)),
        });
      }
    }
    const rest = decoder.end();
    if (rest !== '') send({ kind: 'heap-chunk', id: o.id, text: rest });
    send({ kind: 'heap-end', id: o.id });
  } finally {
    stream.destroy();
  }
}

/** Resolves once the primary has asked for another piece (taking it), rejects when `signal` aborts. */
async function granted(credit: Credit, signal: AbortSignal): Promise<void> {
  while (credit.granted === 0) {
    signal.throwIfAborted();
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', wake);
        delete credit.wake;
        resolve();
      };
      credit.wake = wake;
      signal.addEventListener('abort', wake);
    });
  }
  credit.granted -= 1;
}

function send(m: Untagged<ProfileAnswer>): void {
  if (process.connected) process.send?.(profileMessage<ProfileAnswer>(m));
}
