import { phpTrim } from './php-builtins.js';

// PW `date()` without a format: a unix timestamp (seconds). PW hands other strings to PHP's strtotime();
// this port reads a fixed set of formats and no relative ones ("tomorrow", "+1 day"), which would need a
// clock: the sanitizer stays a pure function.

/** `2024-03-07`, `2024-03-07T12:30`, `2024-03-07 12:30:45.123+02:00`, `…Z`; no zone means UTC. */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** RFC 2822 and HTTP dates: `Thu, 07 Mar 2024 12:30:45 GMT`, `7 Mar 2024 12:30 +0200`. */
const RFC_2822_DATE =
  /^(?:[A-Za-z]{3},?\s+)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s+(GMT|UTC|UT|Z|[+-]\d{4})$/i;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offsetMinutes: number;
}

/** Minutes east of UTC for `Z`, `GMT`, `+02`, `+0200` or `-02:30`. */
function parseZone(zone: string | undefined): number {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone ?? '');
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? '0');
  return m[1] === '-' ? -minutes : minutes;
}

/** Seconds since the epoch, or undefined when a field is out of range (no roll-over: 2024-02-30 fails). */
function toTimestamp(p: DateParts): number | undefined {
  if (p.hour > 23 || p.minute > 59 || p.second > 59) return undefined;
  const ms = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== p.year || d.getUTCMonth() !== p.month - 1 || d.getUTCDate() !== p.day) {
    return undefined;
  }
  return ms / 1000 - p.offsetMinutes * 60;
}

function parseDateText(s: string): number | undefined {
  const iso = ISO_DATE.exec(s);
  if (iso) {
    return toTimestamp({
      year: Number(iso[1]),
      month: Number(iso[2]),
      day: Number(iso[3]),
      hour: Number(iso[4] ?? '0'),
      minute: Number(iso[5] ?? '0'),
      second: Number(iso[6] ?? '0'),
      offsetMinutes: parseZone(iso[7]),
    });
  }
  const rfc = RFC_2822_DATE.exec(s);
  const month = MONTHS.indexOf((rfc?.[2] ?? '').toLowerCase());
  if (!rfc || month < 0) return undefined;
  return toTimestamp({
    year: Number(rfc[3]),
    month: month + 1,
    day: Number(rfc[1]),
    hour: Number(rfc[4]),
    minute: Number(rfc[5]),
    second: Number(rfc[6] ?? '0'),
    offsetMinutes: parseZone(rfc[7]),
  });
}

/**
 * A unix timestamp in seconds, or '' when the value is empty or not a date. Integers and digit strings
 * (a leading `-` allowed) are timestamps already; fractional numbers are truncated. Strings may be ISO 8601
 * dates or date-times (UTC unless a zone is given) or RFC 2822 / HTTP dates.
 */
export function date(value: unknown): number | '' {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) || 0 : '';
  if (typeof value !== 'string') return '';
  const s = phpTrim(value);
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n || 0 : '';
  }
  return parseDateText(s) ?? '';
}
