// PHP's own conversions that ProcessWire's sanitizers are built on: string and int casts, trim(), strip_tags().

/** PHP's default trim() set: space, tab, LF, CR, NUL and vertical tab (Unicode spaces are kept). */
const PHP_TRIM_CHARS = ' \t\n\r\0\x0B';

/** Leading whitespace PHP skips when it reads a number out of a string. */
const LEADING_NUMBER = /^[ \t\n\r\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)/;

/** PW `$sanitizer->string()`: null → '', true → '1', false → '', an array → `array-<count>`. */
export function toPhpString(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (Number.isNaN(value)) return 'NAN';
      if (value === Infinity) return 'INF';
      return value === -Infinity ? '-INF' : String(value);
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? '1' : '';
    case 'object':
      // PW gives an object's class name ('stdClass' for JSON objects), which means nothing here
      return Array.isArray(value) ? `array-${value.length}` : '';
    case 'undefined':
    case 'symbol':
    case 'function':
      return '';
  }
}

/** The number a PHP numeric-prefix read finds at the start of `s` ("12abc" → 12, "1e3" → 1000), or 0. */
export function parseLeadingNumber(s: string): number {
  const m = LEADING_NUMBER.exec(s);
  return m?.[1] === undefined ? 0 : Number(m[1]);
}

/** Clamps to the safe-integer range (PHP saturates at PHP_INT_MAX) and turns -0 into 0. */
export function clampInteger(n: number): number {
  const clamped = Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, n));
  return clamped === 0 ? 0 : clamped;
}

/** PHP's `(int)` cast, except that any non-array object gives 1 as PW's `int()` does. */
export function toPhpInt(value: unknown): number {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? clampInteger(Math.trunc(value)) : 0;
    case 'bigint':
      return clampInteger(Number(value));
    case 'boolean':
      return value ? 1 : 0;
    case 'string':
      return clampInteger(Math.trunc(parseLeadingNumber(value)));
    case 'object':
      if (value === null) return 0;
      return Array.isArray(value) ? Math.min(value.length, 1) : 1;
    case 'undefined':
    case 'symbol':
    case 'function':
      return 0;
  }
}

/** PHP ltrim(): drops leading characters found in `chars`. */
export function phpLtrim(s: string, chars: string = PHP_TRIM_CHARS): string {
  let start = 0;
  while (start < s.length && chars.includes(s.charAt(start))) start++;
  return s.slice(start);
}

/** PHP rtrim(): drops trailing characters found in `chars`. */
export function phpRtrim(s: string, chars: string = PHP_TRIM_CHARS): string {
  let end = s.length;
  while (end > 0 && chars.includes(s.charAt(end - 1))) end--;
  return s.slice(0, end);
}

/** PHP trim(). */
export function phpTrim(s: string, chars: string = PHP_TRIM_CHARS): string {
  return phpRtrim(phpLtrim(s, chars), chars);
}

/** At most `maxChars` characters (code points, as mb_substr counts them). */
export function truncateChars(s: string, maxChars: number): string {
  if (s.length <= maxChars) return s;
  const chars = Array.from(s);
  return chars.length <= maxChars ? s : chars.slice(0, maxChars).join('');
}

/**
 * At most `maxBytes` UTF-8 bytes, dropping a character that would straddle the limit (PHP's byte substr
 * would leave its first bytes, which every caller strips as non-ASCII anyway).
 */
export function truncateUtf8Bytes(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes) return s;
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes > maxBytes) break;
    end += ch.length;
  }
  return s.slice(0, end);
}

/**
 * PHP strip_tags() with no allowed tags: drops `<…>` (quotes and nesting honoured) and `<!-- … -->`; a
 * `<` followed by whitespace is text, and an unterminated tag drops the rest of the string ("5<10" → "5").
 */
export function stripTags(s: string): string {
  if (!s.includes('<')) return s;
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s.charAt(i);
    if (c !== '<' || /^[ \t\n\r\v\f]$/.test(s.charAt(i + 1))) {
      out += c;
      i++;
      continue;
    }
    const end = s.startsWith('<!--', i) ? commentEnd(s, i) : tagEnd(s, i);
    if (end < 0) return out;
    i = end;
  }
  return out;
}

function commentEnd(s: string, start: number): number {
  const close = s.indexOf('-->', start + 4);
  return close < 0 ? -1 : close + 3;
}

/** The index just after the `>` closing the tag opened at `start`, or -1. */
function tagEnd(s: string, start: number): number {
  let depth = 1;
  let quote = '';
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '<') {
      depth++;
    } else if (c === '>' && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}
