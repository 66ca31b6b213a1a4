import type { Summary } from '../common/stats.js';
import type { ScenarioKey } from './scenarios.js';

/** The figures of one scenario: its ceiling, nginx where it has it, and the gateway. */
export interface ScenarioResult {
  key: ScenarioKey;
  processes: number;
  ceiling: Summary;
  reference: Summary | undefined;
  ours: Summary;
}

/** Issue 36's goals, for the same number of processes on each side. */
const GOALS = {
  /** The upstream route's requests/s over nginx's, at least. */
  upstreamOfNginx: 0.6,
  /** The upstream route's p99 over nginx's, at most. */
  upstreamP99OfNginx: 2,
  /** A handler route's requests/s over bare fastify's, at least. */
  handlerOfFastify: 0.8,
  /** jwt and rate-limited routes' requests/s over the plain handler route's, at least. */
  authOfHandler: 0.9,
} as const;

const verdict = (met: boolean): string => (met ? 'meets it' : 'misses it');

/**
 * One line per goal and process count, saying the figure, the goal and whether it was met; and whether the
 * handler route with one process missed its goal, which decides whether the bench profiles.
 */
export function formatGoals(results: readonly ScenarioResult[]): { lines: string[]; handlerMissed: boolean } {
  const lines: string[] = [];
  const counts = [...new Set(results.map((r) => r.processes))];
  let handlerRatio = Number.NaN;
  for (const processes of counts) {
    const of = (key: ScenarioKey) => results.find((r) => r.processes === processes && r.key === key);
    const at = `${processes}p`;
    const upstream = of('upstream');
    if (upstream?.reference) {
      const ratio = upstream.ours.perSecond / upstream.reference.perSecond;
      const p99 = upstream.ours.p99Ms / upstream.reference.p99Ms;
      lines.push(
        `${at} upstream route: ${ratio.toFixed(2)}× nginx's requests/s (goal ≥ ${GOALS.upstreamOfNginx}): ` +
          `${verdict(ratio >= GOALS.upstreamOfNginx)}; p99 ${p99.toFixed(2)}× nginx's ` +
          `(goal ≤ ${GOALS.upstreamP99OfNginx}): ${verdict(p99 <= GOALS.upstreamP99OfNginx)}`,
      );
    }
    const handler = of('handler');
    if (!handler) continue;
    const ratio = handler.ours.perSecond / handler.ceiling.perSecond;
    if (processes === 1) handlerRatio = ratio;
    lines.push(
      `${at} handler route: ${ratio.toFixed(2)}× bare fastify (goal ≥ ${GOALS.handlerOfFastify}): ` +
        verdict(ratio >= GOALS.handlerOfFastify),
    );
    for (const key of ['jwt', 'limited'] as const) {
      const r = of(key);
      if (!r) continue;
      const share = r.ours.perSecond / handler.ours.perSecond;
      lines.push(
        `${at} ${key} route: ${share.toFixed(2)}× the handler route (goal ≥ ${GOALS.authOfHandler}): ` +
          verdict(share >= GOALS.authOfHandler),
      );
    }
  }
  return { lines, handlerMissed: !(handlerRatio >= GOALS.handlerOfFastify) };
}
