import { toPhpString, truncateUtf8Bytes } from './php-builtins.js';

// PW's name family, all built on its `nameFilter()`: the value is cut to a byte length first; quotes,
// backticks, control characters and non-ASCII characters are removed; any other character outside the
// allowed set is replaced.

interface NameRule {
  /** Characters outside a-z, A-Z, 0-9 and the rule's extras. */
  disallowed: RegExp;
  replacement: string;
  maxBytes: number;
}

/** What PHP's FILTER_UNSAFE_RAW with STRIP_LOW, STRIP_HIGH and STRIP_BACKTICK removes. */
// eslint-disable-next-line no-control-regex -- STRIP_LOW removes exactly the C0 controls
const UNSAFE = /[\x00-\x1F`\u0080-\u{10FFFF}]/gu;

function filterName(value: unknown, rule: NameRule): string {
  const s = truncateUtf8Bytes(toPhpString(value), rule.maxBytes);
  if (s.search(rule.disallowed) < 0) return s;
  const unquoted = s.replace(/["']/g, '');
  let filtered = unquoted.replace(UNSAFE, '');
  if (filtered === '') {
    // PW's second try when everything was stripped: angle brackets and guillemets become the replacement
    filtered = unquoted.replace(/[<>«»‹›]/g, rule.replacement).replace(UNSAFE, '');
  }
  return filtered.replace(rule.disallowed, rule.replacement);
}

const NAME_CHARS: NameRule = { disallowed: /[^a-zA-Z0-9\-_.]/g, replacement: '_', maxBytes: 128 };
const PAGE_NAME_CHARS: NameRule = { ...NAME_CHARS, replacement: '-' };
const FIELD_NAME_CHARS: NameRule = { disallowed: /[^a-zA-Z0-9_]/g, replacement: '_', maxBytes: 128 };

/** ASCII `a-z A-Z 0-9 _ . -`; other ASCII characters → `_`; at most 128 characters. */
export function name(value: unknown): string {
  return filterName(value, NAME_CHARS);
}

/** Lower-case `a-z 0-9 - _ .`; other ASCII characters → `-`; at most 128 characters. */
export function pageName(value: unknown): string {
  return filterName(value, PAGE_NAME_CHARS).toLowerCase();
}

/** `a-z A-Z 0-9 _`; other ASCII characters → `_`; at most 128 characters. */
export function fieldName(value: unknown): string {
  return filterName(value, FIELD_NAME_CHARS);
}

/** ASCII letters and digits only, at most 1024. */
export function alphanumeric(value: unknown): string {
  return filterName(value, { ...FIELD_NAME_CHARS, maxBytes: 10240 })
    .replaceAll('_', '')
    .slice(0, 1024);
}

/** ASCII letters only, at most 1024 (PW reads at most 102400 bytes, then 10240 alphanumerics). */
export function alpha(value: unknown): string {
  return filterName(value, { ...FIELD_NAME_CHARS, maxBytes: 102400 })
    .replaceAll('_', '')
    .slice(0, 10240)
    .replace(/[0-9]/g, '')
    .slice(0, 1024);
}

/** ASCII digits only, at most 1024 (from the first 10240 bytes). */
export function digits(value: unknown): string {
  return filterName(value, { ...FIELD_NAME_CHARS, maxBytes: 10240 })
    .replace(/[^0-9]/g, '')
    .slice(0, 1024);
}
