/** Small builders for structural openAPIV3Schema fragments, so the CRD sources read like the API. */
export type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});

/** `MINUTE` → `Minute`. */
export const capitalize = (word: string): string => word.charAt(0) + word.slice(1).toLowerCase();

/** The spellings of a unit the parsers accept, for an `enum`: `minute`, `Minute`, `MINUTE`. */
export const unitSpellings = (units: readonly string[]): string[] =>
  units.flatMap((u) => [u.toLowerCase(), capitalize(u), u]);

/** A CEL rule as `x-kubernetes-validations` takes it. */
export const rule = (expression: string, message: string): Schema => ({ rule: expression, message });
