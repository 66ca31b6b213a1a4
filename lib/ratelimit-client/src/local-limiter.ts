import { RateLimitClientOptionsError } from './errors.js';
import { addLimitHeaders } from './limit-headers.js';
import type {
  DescriptorEntry,
  DescriptorStatus,
  LocalLimiter,
  LocalLimiterOptions,
  LocalLimitRule,
  LocalLimitUnit,
} from './types.js';

/** Seconds in each unit a local rule may use. */
export const LOCAL_LIMIT_UNITS: Readonly<Record<LocalLimitUnit, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
};

interface Counter {
  windowStartMs: number;
  windowEndMs: number;
  hits: number;
}

interface Checked {
  rule: LocalLimitRule;
  key: string;
  windowStartMs: number;
  windowEndMs: number;
  before: number;
  hits: number;
}

/**
 * Fixed windows aligned to the epoch, as the ratelimit service counts, so `RateLimit-Reset` means the same.
 * A refused request counts against none of its descriptors: it never reached what the limit protects, and
 * refusals create no counters, so a flood of refused requests cannot push others' counters out.
 * @throws RateLimitClientOptionsError listing every unusable rule or option.
 */
export function createLocalLimiter(o: LocalLimiterOptions): LocalLimiter {
  checkOptions(o);
  const now = o.now ?? Date.now;
  const rules = o.rules.filter((r) => r.requestsPerUnit > 0);
  // insertion order is age order: a counter is re-inserted when its window starts again
  const counters = new Map<string, Counter>();
  let evictions = 0;

  const makeRoom = (t: number): void => {
    if (counters.size < o.maxKeys) return;
    const oldest = counters.entries().next().value;
    if (!oldest) return;
    const [key, counter] = oldest;
    counters.delete(key);
    if (counter.windowEndMs > t) evictions++;
  };

  return {
    decide(request) {
      const t = now();
      const checked = request.descriptors.map((d): Checked | undefined => {
        const rule = rules.find((r) => matches(r, request.domain, d.entries));
        if (!rule) return undefined;
        const key = counterKey(request.domain, d.entries);
        const unitMs = LOCAL_LIMIT_UNITS[rule.unit] * 1000;
        const windowStartMs = Math.floor(t / unitMs) * unitMs;
        const c = counters.get(key);
        const before = c?.windowStartMs === windowStartMs ? c.hits : 0;
        const hits = d.hitsAddend ?? Math.max(1, request.hitsAddend ?? 1);
        return { rule, key, windowStartMs, windowEndMs: windowStartMs + unitMs, before, hits };
      });
      const overLimit = checked.some((c) => c !== undefined && c.before + c.hits > c.rule.requestsPerUnit);
      if (!overLimit) {
        for (const c of checked) {
          if (!c || c.hits === 0) continue;
          const counter = counters.get(c.key);
          if (counter?.windowStartMs === c.windowStartMs) {
            counter.hits += c.hits;
            continue;
          }
          counters.delete(c.key);
          makeRoom(t);
          counters.set(c.key, { windowStartMs: c.windowStartMs, windowEndMs: c.windowEndMs, hits: c.hits });
        }
      }
      const statuses = checked.map((c) => toStatus(c, { t, counted: !overLimit }));
      return {
        allowed: !overLimit,
        overLimit,
        failedOpen: false,
        local: true,
        headers: addLimitHeaders([], statuses),
        statuses,
      };
    },
    stats: () => ({ keys: counters.size, evictions }),
  };
}

function toStatus(c: Checked | undefined, at: { t: number; counted: boolean }): DescriptorStatus {
  if (!c) return { code: 'OK' };
  const limit = c.rule.requestsPerUnit;
  const after = at.counted ? c.before + c.hits : c.before;
  return {
    code: c.before + c.hits > limit ? 'OVER_LIMIT' : 'OK',
    requestsPerUnit: limit,
    limitRemaining: Math.max(0, limit - after),
    unit: c.rule.unit.toUpperCase(),
    durationUntilResetSeconds: (c.windowEndMs - at.t) / 1000,
  };
}

function matches(rule: LocalLimitRule, domain: string, entries: readonly DescriptorEntry[]): boolean {
  if (rule.domain !== domain || rule.entries.length !== entries.length) return false;
  return rule.entries.every((r, i) => {
    const e = entries[i];
    return e !== undefined && e.key === r.key && (r.value === undefined || r.value === e.value);
  });
}

/** NUL cannot occur in a header-borne value, so no two descriptors share a key. */
function counterKey(domain: string, entries: readonly DescriptorEntry[]): string {
  return [domain, ...entries.flatMap((e) => [e.key, e.value])].join('\0');
}

function checkOptions(o: LocalLimiterOptions): void {
  const problems: string[] = [];
  if (!Number.isInteger(o.maxKeys) || o.maxKeys < 1)
    problems.push(`maxKeys: expected an integer ≥ 1, got ${o.maxKeys}`);
  o.rules.forEach((r, i) => {
    if (!Number.isInteger(r.requestsPerUnit) || r.requestsPerUnit < 0)
      problems.push(`rules[${i}].requestsPerUnit: expected an integer ≥ 0, got ${r.requestsPerUnit}`);
    if (!Object.hasOwn(LOCAL_LIMIT_UNITS, r.unit)) problems.push(`rules[${i}].unit: unknown "${r.unit}"`);
    if (r.entries.length === 0) problems.push(`rules[${i}].entries: at least one entry`);
  });
  if (problems.length > 0) throw new RateLimitClientOptionsError(problems);
}
