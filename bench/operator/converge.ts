import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { exitError } from '../common/child-process.js';
import { domainOf } from './manifests.js';
import type { RateLimitInstance } from './processes.js';

/** Pause between two polls of one instance; each instance has one request in flight at most. */
export const POLL_MS = 10;
const TIMEOUT_MS = 30_000;

const LOADS_LINE = /^ratelimit\.service\.config_load_success: (\d+)$/m;
const ERRORS_LINE = /^ratelimit\.service\.config_load_error: (\d+)$/m;
const RULE_LINE =
  /^([^.\s]+)\.client: unit=\w+ requests_per_unit=(\d+), shadow_mode: false, quota_mode: false$/;

/** How long each poll request took, by kind: what watching costs the instances. */
export interface PollCost {
  probe: number[];
  rlconfig: number[];
}

async function timed(
  took: number[],
  send: () => Promise<Response>,
): Promise<{ status: number; text: string }> {
  const start = performance.now();
  const res = await send();
  const text = await res.text();
  took.push(performance.now() - start);
  return { status: res.status, text };
}

/** `config_load_success` and `config_load_error` from an instance's `/stats`. */
export async function readConfigLoads(inst: RateLimitInstance): Promise<{ success: number; error: number }> {
  const res = await fetch(`${inst.debugUrl}/stats`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${inst.debugUrl}/stats: HTTP ${res.status}`);
  return {
    success: Number(LOADS_LINE.exec(text)?.[1] ?? 0),
    error: Number(ERRORS_LINE.exec(text)?.[1] ?? 0),
  };
}

/**
 * The requests_per_unit an instance applies to `domain` (undefined: no rule), asked as a decision on
 * `POST /json`: one lookup, whatever the number of rules. (`/stats` is no cheap signal: rule counters
 * outlive reloads, so after 1,000 rules it prints and sorts 5,000 lines.)
 */
async function probe(inst: RateLimitInstance, domain: string, cost: PollCost): Promise<number | undefined> {
  const body = JSON.stringify({ domain, descriptors: [{ entries: [{ key: 'client', value: 'bench' }] }] });
  const res = await timed(cost.probe, () => fetch(`${inst.httpUrl}/json`, { method: 'POST', body }));
  // 429 is a decision too: polls count as hits and may go over a limit.
  if (res.status !== 200 && res.status !== 429) {
    throw new Error(`${inst.httpUrl}/json: HTTP ${res.status}: ${res.text.slice(0, 200)}`);
  }
  const decision = JSON.parse(res.text) as {
    statuses?: Array<{ currentLimit?: { requestsPerUnit?: number } }>;
  };
  return decision.statuses?.[0]?.currentLimit?.requestsPerUnit;
}

/** Whether `/rlconfig` has exactly one line per expected domain, each with its expected requests_per_unit. */
async function servesExactly(
  inst: RateLimitInstance,
  expected: readonly number[],
  cost: PollCost,
): Promise<boolean> {
  const res = await timed(cost.rlconfig, () => fetch(`${inst.debugUrl}/rlconfig`));
  if (res.status !== 200) throw new Error(`${inst.debugUrl}/rlconfig: HTTP ${res.status}`);
  const lines = res.text.split('\n').filter((l) => l !== '');
  if (lines.length !== expected.length) return false;
  const served = new Map<string, number>();
  for (const line of lines) {
    const m = RULE_LINE.exec(line);
    if (!m?.[1]) return false;
    served.set(m[1], Number(m[2]));
  }
  return expected.every((rpu, i) => served.get(domainOf(i, expected.length)) === rpu);
}

export interface WaitOptions {
  /** requests_per_unit of `bench-1`… in order; empty for no rules at all. */
  expected: readonly number[];
  /** The domain whose new value signals the change: the edited one, or any for a full push. */
  probeDomain: string;
  /** What `probeDomain` has once the change is applied (undefined: no rule). */
  probeValue: number | undefined;
  since: number;
  cost: PollCost;
  /** Give up after this long from `since`; 30 s by default. */
  timeoutMs?: number;
}

/**
 * Polls an instance until it serves `expected`; returns the time from `since` to the probe answer that
 * first showed the change (configurations are applied whole, so one domain tells), once `/rlconfig`,
 * fetched right after, confirmed every rule. Throws if the instance exits or after `timeoutMs`.
 */
export async function waitUntilServed(inst: RateLimitInstance, o: WaitOptions): Promise<number> {
  for (;;) {
    if (inst.child.isExited()) throw exitError(inst.child.name, inst.child.outputTail());
    const value = await probe(inst, o.probeDomain, o.cost);
    const at = performance.now();
    if (value === o.probeValue && (await servesExactly(inst, o.expected, o.cost))) return at - o.since;
    const timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
    if (at - o.since > timeoutMs) {
      throw new Error(
        `${inst.child.name} did not serve the ${o.expected.length} expected rules within ${timeoutMs} ms ` +
          `(${o.probeDomain}: ${value ?? 'no rule'}, expected ${o.probeValue ?? 'no rule'}):\n` +
          inst.child.outputTail(),
      );
    }
    await sleep(POLL_MS);
  }
}

/** Polls an instance's `/stats` until it has applied a first configuration (the operator's first snapshot). */
export async function waitForFirstConfig(inst: RateLimitInstance, timeoutMs = TIMEOUT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (inst.child.isExited()) throw exitError(inst.child.name, inst.child.outputTail());
    if ((await readConfigLoads(inst)).success > 0) return;
    if (performance.now() > deadline) {
      throw new Error(
        `${inst.child.name} got no configuration within ${timeoutMs} ms:\n${inst.child.outputTail()}`,
      );
    }
    await sleep(POLL_MS);
  }
}
