import { parseDurationMs } from './duration.js';
import { SettingsError } from './errors.js';

interface Named {
  /** An older name read when the main one is unset (upstream Envoy ratelimit's `REDIS_*`, say). */
  alias?: string | readonly string[];
}
interface WithDefault<T> extends Named {
  default: T;
}
interface Bounded extends WithDefault<number> {
  min?: number;
  max?: number;
}

export type EnvSource = Readonly<Record<string, string | undefined>>;

/**
 * Reads typed settings from an environment. Every getter returns a usable value (the default when the
 * variable is bad) and records the problem; `finish()` then throws one `SettingsError` listing them all, so
 * a misconfigured process names every bad variable at once.
 */
export interface EnvReader {
  str(name: string, opts?: WithDefault<string> | Named): string;
  int(name: string, opts: Bounded): number;
  num(name: string, opts: Bounded): number;
  bool(name: string, opts: WithDefault<boolean>): boolean;
  /** A Go-style duration (`10s`, `250ms`, `1h30m`) or `0`, in milliseconds. */
  durationMs(name: string, opts: WithDefault<string>): number;
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
  const range = (o: Bounded): string =>
    [o.min === undefined ? '' : ` ≥ ${o.min}`, o.max === undefined ? '' : ` ≤ ${o.max}`].join('');
  const inRange = (v: number, o: Bounded): boolean =>
    (o.min === undefined || v >= o.min) && (o.max === undefined || v <= o.max);

  return {
    str(name, opts) {
      const found = lookup(name, opts);
      if (found) return found.raw;
      return opts && 'default' in opts ? opts.default : '';
    },
    int(name, opts) {
      const found = lookup(name, opts);
      if (!found) return opts.default;
      const v = Number(found.raw.trim());
      if (!/^-?\d+$/.test(found.raw.trim()) || !Number.isSafeInteger(v) || !inRange(v, opts)) {
        return fail(found, `an integer${range(opts)}`, opts.default);
      }
      return v;
    },
    num(name, opts) {
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
      const found = lookup(name, opts);
      const fallback = parseDurationMs(opts.default) ?? 0;
      if (!found) return fallback;
      const ms = parseDurationMs(found.raw);
      if (ms === undefined) return fail(found, 'a duration such as 250ms, 10s or 1h', fallback);
      return ms;
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
