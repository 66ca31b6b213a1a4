/**
 * A one-argument sanitizer, as ProcessWire's `$sanitizer->name($value)` called without options: it takes
 * any value, never throws, and returns the cleaned value (there is no separate validation step).
 */
export type Sanitizer = (value: unknown) => unknown;
