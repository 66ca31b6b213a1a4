import { array, intArray } from './arrays.js';
import { date } from './date.js';
import { alpha, alphanumeric, digits, fieldName, name, pageName } from './names.js';
import { bit, bool, checkbox, float, int, intSigned, intUnsigned } from './numbers.js';
import { selectorValue } from './selector-value.js';
import { entities, line, lines, string, text, textarea } from './text.js';
import type { Sanitizer } from './types.js';
import { email, httpUrl, url } from './web.js';
import { word, words } from './words.js';

/**
 * The sanitizers a parameter spec (`name|sanitizer`) may name, after ProcessWire's `$sanitizer` methods
 * called with one argument. Each takes any value and never throws. The object has no prototype, so
 * `constructor` or `toString` are not sanitizers.
 */
export const SANITIZERS: Readonly<Record<string, Sanitizer>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Sanitizer>, {
    text,
    textarea,
    line,
    lines,
    string,
    entities,
    selectorValue,
    word,
    words,
    int,
    intUnsigned,
    intSigned,
    float,
    bool,
    bit,
    checkbox,
    email,
    url,
    httpUrl,
    name,
    pageName,
    fieldName,
    alpha,
    alphanumeric,
    digits,
    date,
    array,
    intArray,
  }),
);

/** Lower-cased name → registered name: PHP method names, and so RestApi's sanitizer names, ignore case. */
const CANONICAL_NAMES = new Map(Object.keys(SANITIZERS).map((n) => [n.toLowerCase(), n]));

/** The sanitizer registered as `name` in any letter case (`httpurl` finds `httpUrl`), or undefined. */
export function findSanitizer(name: string): { name: string; sanitize: Sanitizer } | undefined {
  const canonical = CANONICAL_NAMES.get(name.toLowerCase());
  const sanitize = canonical === undefined ? undefined : SANITIZERS[canonical];
  return canonical === undefined || sanitize === undefined ? undefined : { name: canonical, sanitize };
}
