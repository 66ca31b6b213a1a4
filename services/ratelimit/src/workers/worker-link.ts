import type { RateLimitApp } from '../app.js';
import { describeRuleSet } from '../config/rule-set.js';
import { isPrimaryMessage, tagged, type WorkerMessage, type WorkerView } from './messages.js';

// A worker's side of the IPC channel: it answers the primary's questions and reports what it counted
// before it exits (the shutdown itself comes through the kit's shutdown link).

/** Answers the primary's requests for this worker's view and statsd reading. */
export function answerPrimary(app: RateLimitApp): void {
  process.on('message', (m: unknown) => {
    if (!isPrimaryMessage(m)) return;
    if (m.kind === 'reading') send(tagged({ kind: 'reading', id: m.id, reading: app.stats.drainReading() }));
    else void viewOf(app).then((view) => send(tagged({ kind: 'view', id: m.id, view })));
  });
}

/** Sends what this worker counted, once closed, so the primary's totals keep it. */
export async function reportFinal(app: RateLimitApp): Promise<void> {
  const final = { reading: app.stats.drainReading(), metrics: await app.registry.getMetricsAsJSON() };
  await new Promise<void>((resolve) => {
    if (!process.connected) resolve();
    else process.send?.(tagged({ kind: 'final', final }), undefined, {}, () => resolve());
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
