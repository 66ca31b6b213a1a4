import { wrkSeconds } from '../common/wrk.js';
import { SERVERS, type Implementation, type Scenario, type ServerName } from './scenarios.js';
import { withWarmups } from './warm-up.js';

/** Per scenario: the grpc-js or fetch sample check, the load generator's start, the Redis readings. */
const SCENARIO_OVERHEAD_MS = 500;
/** Rough start-up times on a busy 2-core machine; ours includes its share of building the bundles once. */
const STARTUP_MS: Readonly<Record<Implementation, number>> = { ours: 6000, upstream: 2000, ceiling: 4000 };

export interface RunShape {
  durationMs: number;
  repeat: number;
}

/** How long one run of the tool lasts: wrk takes whole seconds. */
const toolMs = (protocol: Scenario['load']['protocol'], ms: number): number =>
  protocol === 'http' ? wrkSeconds(ms) * 1000 : ms;

/** The expected wall time of a run: start-ups, then each scenario's checks, warm-up and measured runs. */
export function estimateRunMs(
  scenarios: readonly Scenario[],
  servers: readonly ServerName[],
  o: RunShape,
): number {
  const startups = servers.reduce((ms, name) => ms + STARTUP_MS[SERVERS[name].implementation], 0);
  const measuring = withWarmups(scenarios).reduce((ms, { scenario, warmupMs }) => {
    const { protocol } = scenario.load;
    return ms + SCENARIO_OVERHEAD_MS + toolMs(protocol, warmupMs) + o.repeat * toolMs(protocol, o.durationMs);
  }, 0);
  return startups + measuring;
}
