import { ConfigError } from './errors.js';

/** A location inside the input: map keys and list indexes from the root. */
export type ConfigPath = ReadonlyArray<string | number>;

export interface Problem {
  path: ConfigPath;
  message: string;
}

/** YAML 1.1 booleans, as upstream's YAML parser reads them. */
const YAML_TRUE = new Set(['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 'Y']);
const YAML_FALSE = new Set(['false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'N']);
/** The largest value `Reader.uint32` takes, and the `maximum` of the schemas of the fields it reads. */
export const UINT32_MAX = 4_294_967_295;

export function formatPath(path: ConfigPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export function formatProblem(source: string, p: Problem): string {
  return p.path.length === 0 ? `${source}: ${p.message}` : `${source}: ${formatPath(p.path)}: ${p.message}`;
}

/** An integer field's bounds and default, as its schema states them (`int(bounds)`). */
export interface IntBounds {
  minimum: number;
  maximum: number;
  default: number;
}

/**
 * Reads plain data (parsed YAML, a custom resource, a decoded xDS message) into typed values, recording a
 * problem with its path for anything unusable and going on with a fallback, so that one pass reports
 * every problem. Scalars may arrive as text or typed.
 */
export class Reader {
  constructor(private readonly problems: Problem[]) {}

  /** Records a problem and returns `fallback`, the value parsing goes on with. */
  fail<T = undefined>(path: ConfigPath, message: string, fallback?: T): T {
    this.problems.push({ path, message });
    return fallback as T;
  }

  map(v: unknown, path: ConfigPath, allowed: ReadonlySet<string>): Record<string, unknown> | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      return this.fail(path, `expected a mapping, got ${describe(v)}`);
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!allowed.has(key)) this.fail([...path, key], `unknown key '${key}'`);
    }
    return record;
  }

  list(v: unknown, path: ConfigPath): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return this.fail(path, `expected a list, got ${describe(v)}`, []);
    return v;
  }

  str(v: unknown, path: ConfigPath): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.fail(path, `expected a string, got ${describe(v)}`);
  }

  bool(v: unknown, path: ConfigPath): boolean {
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && YAML_TRUE.has(v)) return true;
    if (typeof v === 'string' && YAML_FALSE.has(v)) return false;
    return this.fail(path, `expected true or false, got ${describe(v)}`, false);
  }

  /**
   * An integer within a schema's `minimum` and `maximum`, the CRD's own bounds, so the API server and this
   * parser admit the same values; else one problem and the default.
   */
  boundedInt(v: unknown, path: ConfigPath, bounds: IntBounds): number {
    const fallback = bounds.default;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^[-+]?\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) return this.fail(path, `expected an integer, got ${describe(v)}`, fallback);
    if (n < bounds.minimum) return this.fail(path, `must be at least ${bounds.minimum}`, fallback);
    if (n > bounds.maximum) return this.fail(path, `must be at most ${bounds.maximum}`, fallback);
    return n;
  }

  uint32(v: unknown, path: ConfigPath): number {
    if (v === undefined || v === null) return 0;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\+?\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 0 && n <= UINT32_MAX) return n;
    return this.fail(path, `expected an unsigned 32-bit integer, got ${describe(v)}`, 0);
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
}

/** Runs `read` over `input` and returns its result, or throws a `ConfigError` naming `source` in every problem. */
export function readOrThrow<T>(source: string, read: (reader: Reader, problems: Problem[]) => T): T {
  const problems: Problem[] = [];
  const value = read(new Reader(problems), problems);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => formatProblem(source, p)));
  return value;
}
