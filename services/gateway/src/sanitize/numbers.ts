import { parseLeadingNumber, phpLtrim, phpTrim, toPhpInt } from './php-builtins.js';

/**
 * PHP integer cast ("12abc" → 12, "1e3" → 1000, "abc", "" and null → 0, true → 1, a non-empty array → 1),
 * clamped to ≥ 0 as PW's `int` is unsigned. Results stay within ±Number.MAX_SAFE_INTEGER.
 */
export function int(value: unknown): number {
  return Math.max(0, toPhpInt(value));
}

/** Same as `int`. */
export function intUnsigned(value: unknown): number {
  return int(value);
}

/** `int` without the clamp at 0: "-12" → -12. */
export function intSigned(value: unknown): number {
  return toPhpInt(value);
}

/** The index of the decimal separator, `s.length` when commas only group thousands, undefined when none. */
function decimalSeparatorIndex(s: string): number | undefined {
  const dot = s.lastIndexOf('.');
  const comma = s.lastIndexOf(',');
  if (dot > 0 && dot > comma) return dot;
  if (comma > 0 && comma > dot) {
    // "1,234" and "1,234,567" use commas for thousands; "1,5" and "1.234,5" use one for decimals
    return dot < 0 && /^\d+(,\d{3})+([^,]|$)/.test(s) ? s.length : comma;
  }
  return undefined;
}

function parseFloatText(value: string): number {
  let s = phpTrim(value);
  // leading currency signs, names and the like go, as in PW
  while (s !== '' && !/^[-.,0-9]/.test(s)) s = phpLtrim(s, s.charAt(0));
  let sign = '';
  if (s.startsWith('-')) {
    sign = '-';
    s = phpLtrim(s, '-');
  }
  let exponent = '';
  const e = /^(-?[0-9., ]*\d)(e[-+]?\d+)/i.exec(s);
  if (e?.[1] !== undefined && e[2] !== undefined) {
    s = e[1];
    exponent = e[2];
  }
  if (s === '') return 0;
  const digitsOf = (part: string): string => part.replace(/[^0-9]/g, '');
  let body: string;
  if (s.startsWith('.')) {
    body = `0.${phpLtrim(s, ',.')}`;
  } else {
    const at = decimalSeparatorIndex(s);
    body = at === undefined ? digitsOf(s) : `${digitsOf(s.slice(0, at))}.${digitsOf(s.slice(at + 1))}`;
  }
  const n = parseLeadingNumber(sign + body + exponent);
  return Number.isFinite(n) && n !== 0 ? n : 0;
}

/**
 * A number. Strings are read as PW does: leading non-numeric text dropped ("€ 12,50" → 12.5), the last
 * `.` or `,` is the decimal separator unless commas group thousands ("1,234" → 1234), no number → 0.
 * null, undefined, false, arrays and objects → 0; true → 1.
 */
export function float(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) && value !== 0 ? value : 0;
  if (typeof value === 'string') return parseFloatText(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  return 0;
}

/**
 * `false` for '', '0', 'false' (any case, surrounding whitespace ignored), 0, null, undefined, empty
 * arrays and objects without keys; any other string, number, array or object is `true`.
 */
export function bool(value: unknown): boolean {
  if (typeof value === 'string') {
    const s = phpTrim(value.toLowerCase());
    return s !== '' && s !== '0' && s !== 'false';
  }
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  return Boolean(value);
}

/** `bool` as 0 or 1. */
export function bit(value: unknown): 0 | 1 {
  return bool(value) ? 1 : 0;
}

/**
 * 1 when the box was ticked: anything but '', '0', 0, false, null, undefined, an empty array or an object
 * without keys. Unlike `bool`, the string 'false' counts as ticked (PHP `empty()` semantics).
 */
export function checkbox(value: unknown): 0 | 1 {
  if (
    value === '' ||
    value === '0' ||
    value === 0 ||
    value === false ||
    value === null ||
    value === undefined
  )
    return 0;
  if (Array.isArray(value)) return value.length > 0 ? 1 : 0;
  if (typeof value === 'object') return Object.keys(value).length > 0 ? 1 : 0;
  return 1;
}
