import { phpTrim, toPhpInt } from './php-builtins.js';

// PW `array()` and `intArray()` with default options: no nesting, CSV strings split on `|` or `,`.

/** The fields of one CSV line (PHP str_getcsv): `"` encloses a field, `""` inside it is a quote. */
function splitCsv(s: string, delimiter: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (s.charAt(i) === ' ' || s.charAt(i) === '\t') i++;
    let field = '';
    if (s.charAt(i) === '"') {
      for (i++; i < s.length; i++) {
        if (s.charAt(i) !== '"') field += s.charAt(i);
        else if (s.charAt(i + 1) === '"') field += s.charAt(++i);
        else break;
      }
      i++;
    }
    const end = s.indexOf(delimiter, i);
    field += end < 0 ? s.slice(i) : s.slice(i, end);
    fields.push(field);
    if (end < 0) return fields;
    i = end + 1;
  }
}

function fromString(value: string): unknown[] {
  const s = phpTrim(value);
  if (s === '') return [];
  // PW takes the first delimiter found after the first character
  const delimiter = ['|', ','].find((d) => s.indexOf(d) > 0);
  return delimiter === undefined ? [s] : splitCsv(s, delimiter);
}

function toItems(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return fromString(value);
  if (typeof value === 'object') return Object.values(value);
  return [value];
}

/**
 * An array: arrays as they are, objects as their values, null → [], '' → [], a string with `|` or `,`
 * → its CSV fields, any other value → [value]. Nested arrays and objects are dropped (PW's maxDepth 0)
 * and strings trimmed.
 */
export function array(value: unknown): unknown[] {
  return toItems(value)
    .filter((v) => typeof v !== 'object' || v === null)
    .map((v) => (typeof v === 'string' ? phpTrim(v) : v));
}

/** Like `array`, each item then through `int` ("1,2,-3,x" → [1, 2, 0, 0]; a nested array → 0 or 1). */
export function intArray(value: unknown): number[] {
  const items = Array.isArray(value) ? value : array(value);
  return items.map((v) => Math.max(0, toPhpInt(v)));
}
