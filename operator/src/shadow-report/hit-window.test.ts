import { describe, expect, it } from 'vitest';
import { HitWindow } from './hit-window.js';
import type { InstanceReading } from './instance-reading.js';

const MINUTE = 60_000;
const T0 = 1_800_000_000_000;

/** A reading of one rule `web/k` with `[total, over, near, within, shadow]`, started at `startedAtMs`. */
function reading(counts: number[], startedAtMs: number | undefined = T0 - 24 * 60 * MINUTE): InstanceReading {
  return { startedAtMs, rules: new Map([['web', new Map([['k', counts]])]]) };
}

function totalOf(w: HitWindow, nowMs: number): number[] | undefined {
  return w.totals(nowMs).get('web')?.get('k');
}

describe('HitWindow', () => {
  it('counts the increase since the first reading of an instance that started before the window', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('a', reading([100, 10, 5, 90, 10]), T0);
    expect(totalOf(w, T0)).toBeUndefined();
    w.record('a', reading([130, 20, 6, 110, 20]), T0 + MINUTE);
    expect(totalOf(w, T0 + MINUTE)).toEqual([30, 10, 1, 20, 10]);
  });

  it('adds up instances, and lets increases leave the window when it slides past them', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('a', reading([0, 0, 0, 0, 0]), T0);
    w.record('b', reading([50, 0, 0, 50, 0]), T0);
    w.record('a', reading([5, 1, 0, 4, 1]), T0 + MINUTE);
    w.record('b', reading([60, 0, 0, 60, 0]), T0 + MINUTE);
    w.record('a', reading([8, 2, 0, 6, 2]), T0 + 5 * MINUTE);
    expect(totalOf(w, T0 + 5 * MINUTE)).toEqual([18, 2, 0, 16, 2]);
    // a bucket leaves once all of it is older than the window: the one of T0+1m at T0+12m, of T0+5m at T0+16m
    expect(totalOf(w, T0 + 11 * MINUTE)).toEqual([18, 2, 0, 16, 2]);
    expect(totalOf(w, T0 + 12 * MINUTE)).toEqual([3, 1, 0, 2, 1]);
    expect(totalOf(w, T0 + 16 * MINUTE - 1)).toEqual([3, 1, 0, 2, 1]);
    expect(w.totals(T0 + 16 * MINUTE).size).toBe(0);
    expect(w.coveredFromMs('web', T0 + 5 * MINUTE)).toBe(T0);
    expect(w.coveredFromMs('web', T0 + 15 * MINUTE)).toBe(T0 + 5 * MINUTE);
  });

  it('takes a counter that went down as counting again from zero', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('a', reading([100, 0, 0, 100, 0]), T0);
    w.record('a', reading([7, 0, 0, 7, 0]), T0 + MINUTE);
    expect(totalOf(w, T0 + MINUTE)).toEqual([7, 0, 0, 7, 0]);
  });

  it('counts everything of a restarted instance (a new start time), even counters above the last reading', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('a', reading([100, 0, 0, 100, 0]), T0);
    w.record('a', reading([150, 3, 0, 147, 3], T0 + 30_000), T0 + MINUTE);
    expect(totalOf(w, T0 + MINUTE)).toEqual([150, 3, 0, 147, 3]);
  });

  it("counts a new instance's hits since its start when it started within the window, and none otherwise", () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('old', reading([1000, 0, 0, 1000, 0], T0 - 11 * MINUTE), T0);
    w.record('new', reading([40, 4, 0, 36, 4], T0 - 3 * MINUTE), T0);
    w.record('unknown', reading([500, 0, 0, 500, 0], undefined), T0);
    expect(totalOf(w, T0)).toEqual([40, 4, 0, 36, 4]);
    // placed at its start, T0-3m: it leaves with that bucket
    expect(totalOf(w, T0 + 8 * MINUTE - 1)).toEqual([40, 4, 0, 36, 4]);
    expect(totalOf(w, T0 + 8 * MINUTE)).toBeUndefined();
  });

  it('does not count twice an instance that went away and came back, and forgets one gone for a window', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    const start = T0 - 2 * MINUTE;
    w.record('a', reading([20, 0, 0, 20, 0], start), T0);
    w.forget(new Set(), T0 + MINUTE);
    w.record('a', reading([25, 0, 0, 25, 0], start), T0 + 2 * MINUTE);
    expect(totalOf(w, T0 + 2 * MINUTE)).toEqual([25, 0, 0, 25, 0]);
    w.forget(new Set(), T0 + 13 * MINUTE);
    // gone for longer than the window: a new sighting starts from its reading (its start is outside the window)
    w.record('a', reading([90, 0, 0, 90, 0], start), T0 + 13 * MINUTE);
    expect(w.totals(T0 + 13 * MINUTE).size).toBe(0);
  });

  it('keeps rules and domains apart', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    const two = (a: number, b: number): InstanceReading => ({
      startedAtMs: T0 - 60 * MINUTE,
      rules: new Map([
        ['web', new Map([['k', [a, 0, 0, a, 0]]])],
        ['api', new Map([['k', [b, 0, 0, b, 0]]])],
      ]),
    });
    w.record('a', two(0, 0), T0);
    w.record('a', two(3, 9), T0 + MINUTE);
    expect(w.totals(T0 + MINUTE)).toEqual(
      new Map([
        ['web', new Map([['k', [3, 0, 0, 3, 0]]])],
        ['api', new Map([['k', [9, 0, 0, 9, 0]]])],
      ]),
    );
  });

  it('starts over when cleared', () => {
    const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
    w.record('a', reading([0, 0, 0, 0, 0]), T0);
    w.record('a', reading([5, 0, 0, 5, 0]), T0 + MINUTE);
    w.clear();
    w.record('a', reading([9, 0, 0, 9, 0]), T0 + 2 * MINUTE);
    expect(w.totals(T0 + 2 * MINUTE).size).toBe(0);
    expect(w.coveredFromMs('web', T0 + 2 * MINUTE)).toBe(T0 + 2 * MINUTE);
  });

  describe('carrying an earlier report', () => {
    const carried = (counts: number[]): Map<string, number[]> => new Map([['k', counts]]);

    it("adds the leader's own increases to the carried counts, which leave the window with their bucket", () => {
      const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
      w.carry('web', carried([40, 4, 0, 36, 4]), {
        atMs: T0 - 3 * MINUTE,
        fromMs: T0 - 9 * MINUTE,
        uncountedMs: 0,
        nowMs: T0,
      });
      expect(totalOf(w, T0)).toEqual([40, 4, 0, 36, 4]);
      // the first reading of an instance that started before the window is a baseline, as without a carry
      w.record('a', reading([100, 0, 0, 100, 0]), T0);
      w.record('a', reading([105, 1, 0, 104, 1]), T0 + MINUTE);
      expect(totalOf(w, T0 + MINUTE)).toEqual([45, 5, 0, 40, 5]);
      // the carried report's from, while its counts are in the window, then the own first reading's
      expect(w.coveredFromMs('web', T0 + MINUTE)).toBe(T0 - 9 * MINUTE);
      expect(totalOf(w, T0 + 8 * MINUTE - 1)).toEqual([45, 5, 0, 40, 5]);
      expect(totalOf(w, T0 + 8 * MINUTE)).toEqual([5, 1, 0, 4, 1]);
      expect(w.coveredFromMs('web', T0 + 8 * MINUTE)).toBe(T0);
    });

    it('counts the time between the carried report and the carry as uncounted, while it is in the window', () => {
      const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
      w.carry('web', carried([1, 0, 0, 1, 0]), {
        atMs: T0 - 2 * MINUTE,
        fromMs: T0 - 5 * MINUTE,
        uncountedMs: 30_000,
        nowMs: T0,
      });
      // the report's own 30 s, and the 2 minutes since it
      expect(w.uncountedMs('web', T0)).toBe(150_000);
      expect(w.uncountedMs('api', T0)).toBe(0);
      // the carried bucket (T0-2m) leaves at T0+9m: the report's 30 s with it; a minute of the gap is left
      expect(w.uncountedMs('web', T0 + 9 * MINUTE)).toBe(MINUTE);
      w.totals(T0 + 10 * MINUTE);
      expect(w.uncountedMs('web', T0 + 10 * MINUTE)).toBe(0);
    });

    it('does not count again the hits of an instance that started before the carried report', () => {
      const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
      w.carry('web', carried([40, 0, 0, 40, 0]), {
        atMs: T0 - MINUTE,
        fromMs: T0 - 5 * MINUTE,
        uncountedMs: 0,
        nowMs: T0,
      });
      const two = (startedAtMs: number, web: number, api: number): InstanceReading => ({
        startedAtMs,
        rules: new Map([
          ['web', new Map([['k', [web, 0, 0, web, 0]]])],
          ['api', new Map([['k', [api, 0, 0, api, 0]]])],
        ]),
      });
      // started within the window, before the report: the earlier leader counted it (web); api was not carried
      w.record('before', two(T0 - 4 * MINUTE, 30, 7), T0);
      // started after the report: the earlier leader never saw it
      w.record('after', two(T0 - 30_000, 5, 2), T0);
      expect(w.totals(T0)).toEqual(
        new Map([
          ['web', new Map([['k', [45, 0, 0, 45, 0]]])],
          ['api', new Map([['k', [9, 0, 0, 9, 0]]])],
        ]),
      );
    });

    it('ignores a report the window has left, a domain carried already, and forgets carries when cleared', () => {
      const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
      const at = (atMs: number) => ({ atMs, fromMs: atMs - MINUTE, uncountedMs: 0, nowMs: T0 });
      w.carry('web', carried([9, 0, 0, 9, 0]), at(T0 - 11 * MINUTE));
      expect(w.totals(T0).size).toBe(0);
      expect(w.uncountedMs('web', T0)).toBe(0);
      w.carry('web', carried([3, 0, 0, 3, 0]), at(T0 - MINUTE));
      w.carry('web', carried([100, 0, 0, 100, 0]), at(T0 - MINUTE));
      expect(totalOf(w, T0)).toEqual([3, 0, 0, 3, 0]);
      w.clear();
      expect(w.totals(T0).size).toBe(0);
      expect(w.uncountedMs('web', T0)).toBe(0);
      expect(w.coveredFromMs('web', T0)).toBe(T0);
    });

    it('places a report from a clock ahead of this one at now', () => {
      const w = new HitWindow({ windowMs: 10 * MINUTE, bucketMs: MINUTE });
      w.carry('web', carried([2, 0, 0, 2, 0]), {
        atMs: T0 + MINUTE,
        fromMs: T0 - MINUTE,
        uncountedMs: 0,
        nowMs: T0,
      });
      expect(w.uncountedMs('web', T0)).toBe(0);
      expect(totalOf(w, T0 + 11 * MINUTE - 1)).toEqual([2, 0, 0, 2, 0]);
      expect(totalOf(w, T0 + 11 * MINUTE)).toBeUndefined();
    });
  });
});
