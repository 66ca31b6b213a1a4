/**
 * Freezes `value` and every object and array inside it, so no part of a settings object changes after it is
 * read; in ES modules an assignment to any field then throws a `TypeError`. A Map or Set would stay writable
 * through its methods, so one is refused: settings hold plain objects and arrays.
 */
export function deepFreeze<T extends object>(value: T): Readonly<T> {
  if (value instanceof Map || value instanceof Set) {
    throw new TypeError('deepFreeze: a Map or Set stays writable through its methods; use a plain object');
  }
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object') deepFreeze(v as object);
  return Object.freeze(value);
}
