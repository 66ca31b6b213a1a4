import type { Algorithm, Check } from './algorithm.js';

const US_PER_MS = 1000;
const US_PER_SECOND = 1_000_000;

/**
 * The bucket in whole µs: the emission interval (time to earn one request back), at least 1 µs, so rates
 * above 1,000,000 a second refill at 1,000,000 a second.
 */
function bucketOf(c: Check): {
  key: string;
  intervalUs: number;
  capacityUs: number;
  burst: number;
  nowUs: number;
} {
  const { unitSeconds, requestsPerUnit, keySuffix } = c.limit;
  const burst = c.limit.burst ?? requestsPerUnit;
  const intervalUs = Math.max(1, Math.round((unitSeconds * US_PER_SECOND) / requestsPerUnit));
  return {
    key: `${c.keyBase}tb${keySuffix}`,
    intervalUs,
    capacityUs: burst * intervalUs,
    burst,
    nowUs: c.nowMs * US_PER_MS,
  };
}

/**
 * Token bucket as GCRA: the key holds the theoretical arrival time (TAT), one key and one script call per
 * limit. The bucket holds `burst` requests and refills at `requests_per_unit` per unit; remaining is the
 * requests the bucket could take now, the reset the seconds until it is full again (when admitted) or
 * until one more request would be admitted (when refused). The key never contains a window start, so it
 * cannot meet a fixed-window counter.
 */
export const tokenBucket: Algorithm = {
  cacheKey: (c) => bucketOf(c).key,
  ops(c, hits, mode) {
    const b = bucketOf(c);
    const costUs = mode === 'peek' ? 0 : hits * b.intervalUs;
    return [
      {
        kind: 'take',
        key: b.key,
        unitSeconds: c.limit.unitSeconds,
        nowUs: b.nowUs,
        costUs,
        capacityUs: b.capacityUs,
      },
    ];
  },
  outcome(c, answers, { hits, mode }) {
    const b = bucketOf(c);
    const answer = answers[0] ?? 0;
    const costUs = hits * b.intervalUs;
    let admitted: boolean;
    let tatUs: number;
    if (mode === 'peek') {
      admitted = answer + costUs - b.nowUs <= b.capacityUs;
      tatUs = admitted ? answer + costUs : answer;
    } else {
      admitted = answer >= 0;
      tatUs = Math.abs(answer);
    }
    const free = Math.max(0, Math.floor((b.capacityUs - (tatUs - b.nowUs)) / b.intervalUs));
    const oneMoreAtUs = tatUs + b.intervalUs - b.capacityUs;
    return {
      over: !admitted,
      remaining: admitted ? free : 0,
      resetSec: admitted
        ? Math.ceil((tatUs - b.nowUs) / US_PER_SECOND)
        : Math.max(1, Math.ceil((oneMoreAtUs - b.nowUs) / US_PER_SECOND)),
      // in requests: used after the take, or used plus the refused hits
      after: b.burst - free + (admitted ? 0 : hits),
      max: b.burst,
      overUntilMs: Math.ceil(oneMoreAtUs / US_PER_MS),
    };
  },
};
