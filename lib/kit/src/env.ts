import { parseDurationMs } from './duration.js';
import { SettingsError } from './errors.js';

interface Named {
  /** An older name read when the main one is unset (upstream Envoy ratelimit's `REDIS_*`, say). */
  alias?: string | readonly string[];
}
interface WithDefault<T> extends Named {
  default: T;
}
/** The range a number must lie in; both ends are allowed, and the default must lie in it too. */
interface Bounded extends WithDefault<number> {
  min: number;
  max: number;
}
/**
 * The range of a duration, written as durations (`'10ms'`, `'1h'`) the way the default is, so the problem
 * text shows them as written: `X="1ms": expected a duration ≥ 10ms ≤ 1h`.
 */
interface DurationBounds extends WithDefault<string> {
  min: string;
  max: string;
  /** What `0` means, when it is allowed outside the range: `never`, `no limit`. */
  zeroMeans?: string;
}

export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Reads typed settings from an environment. Every getter returns a usable value (the default when the
 * variable is bad) and records the problem; `finish()` then throws one `SettingsError` listing them all, so
 * a misconfigured process names every bad variable at once. A value out of range is refused, never clamped.
 * Bounds that do not parse, or a default outside them, are the caller's mistake: the getter throws at once.
 */
export interface EnvReader {
  str(name: string, opts?: WithDefault<string> | Named): string;
  int(name: string, opts: Bounded): number;
  num(name: string, opts: Bounded): number;
  bool(name: string, opts: WithDefault<boolean>): boolean;
  /** A Go-style duration (`10s`, `250ms`, `1h30m`) or `0`, in milliseconds, within the bounds. */
  durationMs(name: string, opts: DurationBounds): number;
  oneOf<T extends string>(name: string, values: readonly T[], opts: WithDefault<T>): T;
  /** A comma-separated list; blanks around items are dropped, empty items too. */
  list(name: string, opts?: WithDefault<readonly string[]> | Named): string[];
  /** Records a problem found by the caller, e.g. two settings that exclude each other. */
  problem(message: string): void;
  finish(): void;
}

const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

/** A boolean as Go's `strconv.ParseBool` reads it (`1`, `t`, `TRUE`, …); undefined for anything else. */
export function parseBoolean(text: string): boolean | undefined {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  return undefined;
}

export function createEnvReader(env: EnvSource): EnvReader {
  const problems: string[] = [];

  const lookup = (name: string, opts?: Named): { name: string; raw: string } | undefined => {
    const names = [name, ...(typeof opts?.alias === 'string' ? [opts.alias] : (opts?.alias ?? []))];
    for (const n of names) {
      const raw = env[n];
      if (raw !== undefined && raw !== '') return { name: n, raw };
    }
    return undefined;
  };
  const fail = <T>(found: { name: string; raw: string }, expected: string, fallback: T): T => {
    problems.push(`${found.name}=${JSON.stringify(found.raw)}: expected ${expected}`);
    return fallback;
  };
  const range = (o: { min: number | string; max: number | string }): string => ` ≥ ${o.min} ≤ ${o.max}`;
  const inRange = (v: number, o: { min: number; max: number }): boolean => v >= o.min && v <= o.max;
  const checkDefault = (name: string, fallback: number, o: { min: number; max: number }): void => {
    if (!inRange(fallback, o)) throw new RangeError(`${name}: the default is outside${range(o)}`);
  };
  const durationBounds = (name: string, o: DurationBounds): { min: number; max: number } => {
    const min = parseDurationMs(o.min);
    const max = parseDurationMs(o.max);
    if (min === undefined || max === undefined || min > max) {
      throw new RangeError(`${name}: bounds ${o.min}, ${o.max} are not an ascending pair of durations`);
    }
    return { min, max };
  };

  return {
    str(name, opts) {
      const found = lookup(name, opts);
      if (found) return found.raw;
      return opts && 'default' in opts ? opts.default : '';
    },
    int(name, opts) {
      checkDefault(name, opts.default, opts);
      const found = lookup(name, opts);
      if (!found) return opts.default;
      const v = Number(found.raw.trim());
      if (!/^-?\d+$/.test(found.raw.trim()) || !Number.isSafeInteger(v) || !inRange(v, opts)) {
        return fail(found, `an integer${range(opts)}`, opts.default);
      }
      return v;
    },
    num(name, opts) {
      checkDefault(name, opts.default, opts);
      const found = lookup(name, opts);
      if (!found) return opts.default;
      const v = Number(found.raw.trim());
      if (found.raw.trim() === '' || !Number.isFinite(v) || !inRange(v, opts)) {
        return fail(found, `a number${range(opts)}`, opts.default);
      }
      return v;
    },
    bool(name, opts) {
      const found = lookup(name, opts);
      if (!found) return opts.default;
      return parseBoolean(found.raw.trim()) ?? fail(found, 'true or false', opts.default);
    },
    durationMs(name, opts) {
      const bounds = durationBounds(name, opts);
      const isAllowed = (ms: number): boolean =>
        inRange(ms, bounds) || (ms === 0 && opts.zeroMeans !== undefined);
      const fallback = parseDurationMs(opts.default);
      if (fallback === undefined || !isAllowed(fallback)) {
        throw new RangeError(`${name}: the default ${opts.default} is not a duration${range(opts)}`);
      }
      const found = lookup(name, opts);
      if (!found) return fallback;
      const ms = parseDurationMs(found.raw);
      if (ms === undefined) return fail(found, 'a duration such as 250ms, 10s or 1h', fallback);
      if (isAllowed(ms)) return ms;
      const zero = opts.zeroMeans === undefined ? '' : `0 (${opts.zeroMeans}) or `;
      return fail(found, `${zero}a duration${range(opts)}`, fallback);
    },
    oneOf(name, values, opts) {
      const found = lookup(name, opts);
      if (!found) return opts.default;
      const match = values.find((v) => v.toLowerCase() === found.raw.trim().toLowerCase());
      return match ?? fail(found, `one of ${values.join(', ')}`, opts.default);
    },
    list(name, opts) {
      const found = lookup(name, opts);
      if (!found) return opts && 'default' in opts ? [...opts.default] : [];
      return found.raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    },
    problem(message) {
      problems.push(message);
    },
    finish() {
      if (problems.length > 0) throw new SettingsError(problems);
    },
  };
}
