import type { Worker } from 'node:cluster';

// The one message every service's primary sends its workers: stop. Tagged, so it is told apart from the
// service's own messages and prom-client's on the same IPC channel.

const SHUTDOWN = { tag: 'portcullis-worker', kind: 'shutdown' } as const;

function isShutdownMessage(m: unknown): boolean {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { tag?: unknown }).tag === SHUTDOWN.tag &&
    (m as { kind?: unknown }).kind === SHUTDOWN.kind
  );
}

/**
 * Tells a worker to drain and exit. A send that fails because the worker's channel is closing is routine
 * (the callback keeps it from being emitted as an 'error' that would crash the primary); its exit is
 * handled where it is watched.
 */
export function sendShutdown(worker: Worker): void {
  if (worker.isConnected()) worker.send(SHUTDOWN, () => undefined);
}

let shutdownRequested: NodeJS.Signals | undefined;
let beginShutdown = (signal: NodeJS.Signals): void => void (shutdownRequested ??= signal);

/**
 * From a worker's first moment, notes a shutdown asked by the primary, or by the primary being gone (the
 * channel closed), or by a SIGINT or SIGTERM of its own (Ctrl-C reaches the whole process group), so one
 * that comes while the worker starts is not lost.
 */
export function listenForShutdown(): void {
  process.on('SIGINT', () => beginShutdown('SIGINT'));
  process.on('SIGTERM', () => beginShutdown('SIGTERM'));
  process.on('message', (m: unknown) => {
    if (isShutdownMessage(m)) beginShutdown('SIGTERM');
  });
  process.on('disconnect', () => beginShutdown('SIGTERM'));
}

/** Hands the shutdown noted by `listenForShutdown` (now or later) to `begin`: `runMain`'s `shutdownOn`. */
export function onPrimaryShutdown(begin: (signal: NodeJS.Signals) => void): void {
  beginShutdown = begin;
  if (shutdownRequested) begin(shutdownRequested);
}
