import type { RateLimitApp } from '../app.js';
import { describeRuleSet } from '../config/rule-set.js';
import { isPrimaryMessage, tagged, type WorkerMessage, type WorkerView } from './messages.js';

// A worker's side of the IPC channel: it answers the primary's questions, stops when told, and reports
// what it counted before it exits.

/** Answers the primary's requests for this worker's view and statsd reading. */
export function answerPrimary(app: RateLimitApp): void {
  process.on('message', (m: unknown) => {
    if (!isPrimaryMessage(m) || m.kind === 'shutdown') return;
    if (m.kind === 'reading')
      send(tagged<WorkerMessage>({ kind: 'reading', id: m.id, reading: app.stats.drainReading() }));
    else void viewOf(app).then((view) => send(tagged<WorkerMessage>({ kind: 'view', id: m.id, view })));
  });
}

let shutdownRequested: NodeJS.Signals | undefined;
let beginShutdown = (signal: NodeJS.Signals): void => void (shutdownRequested ??= signal);

/**
 * From the worker's first moment, notes a shutdown asked by the primary, or by the primary being gone (the
 * channel closed), or by a SIGINT or SIGTERM of its own (Ctrl-C reaches the whole process group), so one
 * that comes while the worker starts is not lost.
 */
export function listenForShutdown(): void {
  process.on('SIGINT', () => beginShutdown('SIGINT'));
  process.on('SIGTERM', () => beginShutdown('SIGTERM'));
  process.on('message', (m: unknown) => {
    if (isPrimaryMessage(m) && m.kind === 'shutdown') beginShutdown('SIGTERM');
  });
  process.on('disconnect', () => beginShutdown('SIGTERM'));
}

/** Hands the shutdown noted by `listenForShutdown` (now or later) to `begin`: `runMain`'s `shutdownOn`. */
export function onPrimaryShutdown(begin: (signal: NodeJS.Signals) => void): void {
  beginShutdown = begin;
  if (shutdownRequested) begin(shutdownRequested);
}

/** Sends what this worker counted, once closed, so the primary's totals keep it. */
export async function reportFinal(app: RateLimitApp): Promise<void> {
  const final = { reading: app.stats.drainReading(), metrics: await app.registry.getMetricsAsJSON() };
  await new Promise<void>((resolve) => {
    if (!process.connected) resolve();
    else process.send?.(tagged<WorkerMessage>({ kind: 'final', final }), undefined, {}, () => resolve());
  });
}

async function viewOf(app: RateLimitApp): Promise<WorkerView> {
  const rules = app.service.currentRules();
  return {
    rules: rules ? describeRuleSet(rules) : '',
    health: app.health.snapshot(),
    counters: [...app.stats.entries()],
    gauges: [...app.stats.gaugeEntries()],
    metrics: await app.registry.getMetricsAsJSON(),
  };
}

function send(m: WorkerMessage): void {
  if (process.connected) process.send?.(m);
}
