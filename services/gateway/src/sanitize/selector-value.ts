import { phpLtrim, phpTrim, toPhpString, truncateChars } from './php-builtins.js';

// PW `selectorValue()` (version 2, default options). The port uses it as a strict text sanitizer: `/auth`
// runs it on `username`.

/** Replaced by a space, in this order (`\0` is the two characters backslash and zero, as in PW). */
const BLACKLIST = [
  '"',
  '\\0',
  '\\',
  '`',
  '|',
  '=',
  '*',
  '%',
  '~',
  '^',
  '$',
  '#',
  '<',
  '>',
  '[',
  ']',
  '{',
  '}',
  '\r',
  '\n',
  '\t',
];

/** A value containing any of these is returned in double quotes. */
const QUOTELIST = ["'", ',', '!', ':', ';', '(', ')', '*', '+'];

/** PW's UTF-8 whitespace list (getWhitespaceArray), each replaced by a plain space. */
const WHITESPACE =
  /[\0\t\n\v\f\r\u0085\u00A0\u1680\u180E\u2000-\u200D\u2028\u2029\u202F\u205F\u2060\u3000\uFEFF]/g;

/** Anything but letters, numbers, punctuation, marks, symbols, space, apostrophe and slash. */
const NOT_SELECTOR_CHAR = /[^\p{L}\p{N}\p{P}\p{M}\p{S} '/]/gu;

const MAX_CHARS = 100;

function isAsciiAlnum(s: string): boolean {
  return /^[A-Za-z0-9]+$/.test(s);
}

function replaceRepeatedly(s: string, find: string, replacement: string): string {
  let out = s;
  while (out.includes(find)) out = out.replaceAll(find, replacement);
  return out;
}

function needsQuotes(s: string): boolean {
  if (QUOTELIST.some((c) => s.includes(c))) return true;
  const first = s.charAt(0);
  const last = s.charAt(s.length - 1);
  if (!isAsciiAlnum(first) && first !== '/') return true;
  if (!isAsciiAlnum(last) && last !== '/') return true;
  // a leading slash is fine for a path, otherwise PW prefers quotes
  return first === '/' && !isAsciiAlnum(s.replace(/[/\-_.]/g, ''));
}

function sanitizeArray(items: readonly unknown[]): string {
  if (items.length < 2) return selectorValue(toPhpString(items[0]));
  return items.map((v) => selectorValue(v) || '""').join('|');
}

/**
 * Drops `" \ ` | = * % ~ ^ $ # < > [ ] { }`, CR, LF and TAB, turns other whitespace and control characters
 * into spaces, trims, cuts to 100 characters, and wraps the value in double quotes when it contains one of
 * `' , ! : ; ( ) * +`, starts or ends with anything but an ASCII letter or digit (or a slash), or came
 * quoted. An array of two or more values becomes an OR list `a|b`.
 */
export function selectorValue(value: unknown): string {
  if (Array.isArray(value)) return sanitizeArray(value);
  let s = phpTrim(toPhpString(value));
  if (s === '') return '';
  const first = s.charAt(0);
  const hadQuotes = (first === '"' || first === "'") && s.endsWith(first);
  for (const c of BLACKLIST) s = s.replaceAll(c, ' ');
  s = phpTrim(phpTrim(s).replace(WHITESPACE, ' '));
  if (s === '') return '';
  if (s.startsWith("'")) s = s.endsWith("'") ? phpTrim(s, "' ") : phpLtrim(s, "' ");
  s = truncateChars(s, MAX_CHARS);
  if (!isAsciiAlnum(s.replace(/[, \-_/.']/g, ''))) {
    s = s.replace(NOT_SELECTOR_CHAR, ' ').replace(/\s{2,}/gu, ' ');
  }
  s = replaceRepeatedly(s, '..', '.');
  s = replaceRepeatedly(s, './', ' ');
  s = replaceRepeatedly(s, '  ', ' ');
  s = phpTrim(phpTrim(phpTrim(s), '+,'));
  if (s === '') return '';
  return hadQuotes || needsQuotes(s) ? `"${s}"` : s;
}
