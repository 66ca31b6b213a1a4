import { phpTrim, stripTags, toPhpString, truncateChars } from './php-builtins.js';

interface TextOptions {
  /** Characters (code points) kept; 0 keeps all. */
  maxChars: number;
  multiLine: boolean;
}

/** Characters `entities` escapes (PHP htmlentities with ENT_QUOTES; other characters stay as they are). */
const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#039;',
};

/**
 * PW `text()` and `textarea()`. In the single-line case CR becomes LF and then "\n\n" and "\n" become one
 * space each, before tags are stripped, as in PW. The byte cap PW adds (4 × maxChars) cannot bind on UTF-8
 * text of maxChars code points, so it is left out.
 */
function cleanText(value: unknown, o: TextOptions): string {
  let s = toPhpString(value);
  s = o.multiLine
    ? s.replaceAll('\r\n', '\n')
    : s.replaceAll('\r', '\n').replaceAll('\n\n', ' ').replaceAll('\n', ' ');
  s = phpTrim(stripTags(s).replaceAll('\u2028', ''));
  if (o.maxChars === 0) return s;
  const cut = truncateChars(s, o.maxChars);
  return cut === s ? s : phpTrim(cut);
}

/** One line of plain text: tags stripped, newlines → space, trimmed, at most 255 characters. */
export function text(value: unknown): string {
  return cleanText(value, { maxChars: 255, multiLine: false });
}

/** Multi-line plain text: like `text` but newlines kept (CRLF → LF), at most 16384 characters. */
export function textarea(value: unknown): string {
  return cleanText(value, { maxChars: 16384, multiLine: true });
}

/** `text` without the length cap. */
export function line(value: unknown): string {
  return cleanText(value, { maxChars: 0, multiLine: false });
}

/** `textarea` without the length cap. */
export function lines(value: unknown): string {
  return cleanText(value, { maxChars: 0, multiLine: true });
}

/** Coercion only (PHP string cast): null → '', true → '1', false → '', an array → `array-<count>`. */
export function string(value: unknown): string {
  return toPhpString(value);
}

/** HTML-escapes `& < > " '` (an output helper; it strips nothing). */
export function entities(value: unknown): string {
  return toPhpString(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}
