/**
 * What each sanitizer of `SANITIZERS` makes of a value, one line each (docs/routing.md's table, shortened), for
 * the OpenAPI document's parameters. sanitizer-descriptions.test.ts fails when a sanitizer has none.
 */
export const SANITIZER_DESCRIPTIONS: Readonly<Record<string, string>> = {
  text: 'one line of plain text: tags stripped, newlines made spaces, trimmed, at most 255 characters',
  textarea: 'plain text with its newlines, tags stripped, at most 16384 characters',
  line: 'one line of plain text, tags stripped, no length cap',
  lines: 'plain text with its newlines, tags stripped, no length cap',
  string: "converted to a string (null → '', true → '1', an array → 'array-<count>')",
  entities: 'HTML-escaped: & < > " \'',
  selectorValue: 'strict text: selector operators made spaces, at most 100 characters, quoted when needed',
  word: 'its first word',
  words: 'up to 99 words joined by spaces',
  int: 'an integer ≥ 0 (PHP cast: "12abc" → 12, no number → 0)',
  intUnsigned: 'an integer ≥ 0 (PHP cast: "12abc" → 12, no number → 0)',
  intSigned: 'an integer (PHP cast; negatives kept)',
  float: 'a number ("€ 12,50" → 12.5; no number → 0)',
  bool: "false for '', '0', 'false', 0, null and empty arrays; otherwise true",
  bit: "0 for '', '0', 'false', 0, null and empty arrays; otherwise 1",
  checkbox: '1 for any non-empty value, else 0',
  email: "a valid e-mail address, or ''",
  url: "a valid URL (a bare domain gets http://; javascript:, data:, file: … refused), or ''",
  httpUrl: "an absolute http or https URL, or ''",
  name: 'ASCII a-z A-Z 0-9 _ . - (other ASCII → _), at most 128 characters',
  pageName: 'lower-case a-z 0-9 _ . - (other ASCII → -), at most 128 characters',
  fieldName: 'a-z A-Z 0-9 _ (other ASCII → _), at most 128 characters',
  alpha: 'ASCII letters only, at most 1024',
  alphanumeric: 'ASCII letters and digits only, at most 1024',
  digits: 'digits only, at most 1024',
  date: "a Unix timestamp in seconds from an integer, ISO 8601 or RFC 2822 date, or ''",
  array: 'an array (from an array, an object, or a "|"- or ","-separated string)',
  intArray: 'an array of integers ≥ 0',
};
