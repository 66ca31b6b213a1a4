import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// week (7 days), month (30 days) and year (365 days), upstream's lengths: windows aligned to the epoch.
const CONFIG = `domain: units
descriptors:
  - key: period
    value: week
    rate_limit: {unit: week, requests_per_unit: 3}
  - key: period
    value: month
    rate_limit: {unit: Month, requests_per_unit: 3}
  - key: period
    value: year
    rate_limit: {unit: YEAR, requests_per_unit: 3}
`;
const SECONDS = { WEEK: 604_800, MONTH: 2_592_000, YEAR: 31_536_000 } as const;

describe('week, month and year', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ 'units.yaml': CONFIG });
  });
  afterAll(() => h.close());

  const request = (value: string) => ({
    domain: 'units',
    descriptors: [{ entries: [{ key: 'period', value }] }],
  });
  /** Seconds to the end of the current window, computed here; the service's may be a second less. */
  const untilEnd = (unitSeconds: number) => unitSeconds - (Math.floor(Date.now() / 1000) % unitSeconds);

  it.each(Object.entries(SECONDS))(
    '%s: the unit in gRPC and /json answers, reset at the window end',
    async (unit, seconds) => {
      const value = unit.toLowerCase();
      const grpc = await h.rls.shouldRateLimit(request(value));
      const expected = untilEnd(seconds);
      expect(grpc.statuses).toMatchObject([
        { code: 'OK', currentLimit: { requestsPerUnit: 3, unit }, limitRemaining: 2 },
      ]);
      const grpcReset = Number(
        (grpc.statuses as Array<{ durationUntilReset: { seconds: number } }>)[0]?.durationUntilReset.seconds,
      );
      expect(Math.abs(grpcReset - expected)).toBeLessThanOrEqual(1);

      const json = await h.json(request(value));
      expect(json.body).toMatchObject({
        statuses: [{ code: 'OK', currentLimit: { requestsPerUnit: 3, unit }, limitRemaining: 1 }],
      });
      const jsonReset = (json.body as { statuses: Array<{ durationUntilReset: string }> }).statuses[0]
        ?.durationUntilReset;
      expect(Math.abs(Number(jsonReset?.replace(/s$/, '')) - expected)).toBeLessThanOrEqual(1);
    },
  );
});
