import { compilePathGlob, matchesPathGlob, type PathGlob } from './path-glob.js';
import { parseStreamId } from './stream-id.js';

// One filter syntax for the API's query parameters, the inspector's address and `inbox tail --filter`: a URL
// query string (`method=POST&path=/orders/*&q=refund`). Pure and free of Node-only APIs: the inspector
// bundles it to filter live captures with the same rules the server applies.

/** The parameters a filter is made of; others (`limit`, `before`) are the page's. */
export const FILTER_PARAMS = ['method', 'path', 'header', 'query', 'q', 'from', 'to', 'forwarding'] as const;
export type FilterParam = (typeof FILTER_PARAMS)[number];

export const FORWARDING_STATES = ['delivered', 'retrying', 'dead', 'none'] as const;
export type ForwardingState = (typeof FORWARDING_STATES)[number];

/** Longest text a parameter may hold: the body search costs its length times the bytes scanned. */
export const MAX_FILTER_TEXT_CHARS = 200;
/** `header` may be given this many times. */
export const MAX_HEADER_FILTERS = 10;

export interface CaptureFilter {
  /** Upper case; any of them. */
  methods: string[];
  /** Whole nested path, `*` standing for any run of characters. */
  path: PathGlob | undefined;
  /** Lower-case names; a value is a case-insensitive substring. All must be present. */
  headers: Array<{ name: string; value: string | undefined }>;
  /** Lower case; a substring of the raw query string. */
  query: string | undefined;
  /** Lower case; a substring of the body read as UTF-8. */
  text: string | undefined;
  /** Milliseconds since the epoch, inclusive, of the request id. */
  fromMs: number | undefined;
  toMs: number | undefined;
  forwarding: ForwardingState | undefined;
}

/** What a capture is matched on: the server's stored capture and the inspector's full record both give it. */
export interface CaptureFacts {
  id: string;
  method: string;
  nestedPath: string;
  /** The raw query string, without `?`. */
  query: string;
  /** Flat `[name, value, …]`. */
  rawHeaders: readonly string[];
  body: Uint8Array;
}

/** The parts of a forwarding attempt the `forwarding` filter reads. */
export interface AttemptOutcome {
  target: string;
  outcome: 'delivered' | 'retrying' | 'dead' | 'redriven';
}

export type FilterResult =
  { filter: CaptureFilter; problems: [] } | { filter?: undefined; problems: string[] };

const isFilterParam = (name: string): name is FilterParam =>
  (FILTER_PARAMS as readonly string[]).includes(name);

/** True when some filter parameter is present, even empty. */
export function hasFilterParams(pairs: Iterable<readonly [string, string]>): boolean {
  for (const [name] of pairs) if (isFilterParam(name)) return true;
  return false;
}

/**
 * Reads a filter from query-string pairs, listing every problem. `unknown: 'refuse'` (the CLI, the
 * inspector) reports names that are not filter parameters; the API ignores them, as it always has.
 */
export function parseCaptureFilter(
  pairs: Iterable<readonly [string, string]>,
  o: { unknown: 'ignore' | 'refuse' },
): FilterResult {
  const problems: string[] = [];
  const f: CaptureFilter = {
    methods: [],
    path: undefined,
    headers: [],
    query: undefined,
    text: undefined,
    fromMs: undefined,
    toMs: undefined,
    forwarding: undefined,
  };
  const seen = new Set<string>();
  for (const [name, value] of pairs) {
    if (!isFilterParam(name)) {
      if (o.unknown === 'refuse')
        problems.push(`${name}: unknown; expected one of ${FILTER_PARAMS.join(', ')}`);
      continue;
    }
    if (name !== 'header' && name !== 'method' && seen.has(name)) problems.push(`${name}: given twice`);
    seen.add(name);
    if (value.length > MAX_FILTER_TEXT_CHARS) {
      problems.push(`${name}: at most ${MAX_FILTER_TEXT_CHARS} characters`);
      continue;
    }
    readParam(f, [name, value], problems);
  }
  if (f.headers.length > MAX_HEADER_FILTERS) problems.push(`header: at most ${MAX_HEADER_FILTERS}`);
  if (f.fromMs !== undefined && f.toMs !== undefined && f.fromMs > f.toMs) problems.push('from: after to');
  return problems.length > 0 ? { problems } : { filter: f, problems: [] };
}

function readParam(f: CaptureFilter, [name, value]: [FilterParam, string], problems: string[]): void {
  switch (name) {
    case 'method': {
      const methods = value.split(',').map((m) => m.trim().toUpperCase());
      if (methods.some((m) => !/^[A-Z-]{1,32}$/.test(m)))
        problems.push(`method: expected names such as POST,PUT`);
      else f.methods.push(...methods);
      return;
    }
    case 'path':
      if (!/^[/*]/.test(value) && value !== '') {
        problems.push('path: expected a nested path starting with / or *');
      } else f.path = compilePathGlob(value);
      return;
    case 'header': {
      const colon = value.indexOf(':');
      const headerName = (colon === -1 ? value : value.slice(0, colon)).trim().toLowerCase();
      if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(headerName)) {
        problems.push('header: expected name or name:value');
        return;
      }
      const v =
        colon === -1
          ? undefined
          : value
              .slice(colon + 1)
              .trim()
              .toLowerCase();
      f.headers.push({ name: headerName, value: v });
      return;
    }
    case 'query':
      f.query = value.toLowerCase();
      return;
    case 'q':
      if (value === '') problems.push('q: expected some text');
      else f.text = value.toLowerCase();
      return;
    case 'from':
    case 'to': {
      const ms = parseTime(value);
      if (ms === undefined)
        problems.push(`${name}: expected an ISO 8601 time or milliseconds since the epoch`);
      else if (name === 'from') f.fromMs = ms;
      else f.toMs = ms;
      return;
    }
    case 'forwarding':
      if (!(FORWARDING_STATES as readonly string[]).includes(value)) {
        problems.push(`forwarding: expected one of ${FORWARDING_STATES.join(', ')}`);
      } else f.forwarding = value as ForwardingState;
      return;
    default: {
      const _: never = name;
      return _;
    }
  }
}

/** The latest time a JavaScript Date holds, in ms: ids beyond it never exist. */
const MAX_TIME_MS = 8_640_000_000_000_000;

/** Milliseconds since the epoch; a time before 1970 is 0, as no request id is older. */
function parseTime(text: string): number | undefined {
  const ms = /^\d{1,16}$/.test(text) ? Number(text) : /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(ms) || ms > MAX_TIME_MS ? undefined : Math.max(0, ms);
}

const utf8 = new TextDecoder('utf-8');

/** Whether a capture matches; `forwarding` is its history, needed only when `f.forwarding` is set. */
export function matchesCapture(
  f: CaptureFilter,
  c: CaptureFacts,
  forwarding: readonly AttemptOutcome[] = [],
): boolean {
  if (f.methods.length > 0 && !f.methods.includes(c.method.toUpperCase())) return false;
  if (f.path && !matchesPathGlob(f.path, c.nestedPath)) return false;
  const [ms] = parseStreamId(c.id);
  if ((f.fromMs !== undefined && ms < f.fromMs) || (f.toMs !== undefined && ms > f.toMs)) return false;
  if (f.query !== undefined && !c.query.toLowerCase().includes(f.query)) return false;
  for (const h of f.headers) if (!hasHeader(c.rawHeaders, h)) return false;
  if (f.forwarding !== undefined && !matchesForwarding(forwarding, f.forwarding)) return false;
  // last: the costliest, a decode of up to the whole body
  return f.text === undefined || utf8.decode(c.body).toLowerCase().includes(f.text);
}

function hasHeader(raw: readonly string[], h: { name: string; value: string | undefined }): boolean {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() !== h.name) continue;
    if (h.value === undefined || (raw[i + 1] ?? '').toLowerCase().includes(h.value)) return true;
  }
  return false;
}

/** `none`: never tried. Otherwise some target's latest attempt has that outcome (each keeps its history). */
function matchesForwarding(history: readonly AttemptOutcome[], wanted: ForwardingState): boolean {
  if (wanted === 'none') return history.length === 0;
  const latest = new Map<string, AttemptOutcome['outcome']>();
  // a redriven capture waits for a fresh attempt, as a retrying one does
  for (const a of history) latest.set(a.target, a.outcome === 'redriven' ? 'retrying' : a.outcome);
  return [...latest.values()].includes(wanted);
}
