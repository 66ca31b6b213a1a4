/**
 * `metav1.MicroTime` as the real server decodes it: Go's `time.Parse` with the layout
 * `2006-01-02T15:04:05.000000Z07:00`, which demands exactly six fractional digits.
 */

const LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** Go's parse error for a value that does not fit the layout, or undefined when it parses. */
export function checkMicroTime(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return `json: cannot unmarshal ${typeof value} into Go value of type string`;
  const fail = (rest: string, element: string): string =>
    `parsing time ${JSON.stringify(value)} as ${JSON.stringify(LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(element)}`;
  const head = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(value);
  if (!head) return fail(value, '2006');
  let rest = value.slice(head[0].length);
  if (!/^[.,]\d{6}/.test(rest)) return fail(rest, '.000000');
  rest = rest.slice(7);
  const zone = /^(Z|[+-]\d{2}:\d{2})/.exec(rest);
  if (!zone) return fail(rest, 'Z07:00');
  rest = rest.slice(zone[0].length);
  if (rest) return `parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(rest)}`;
  return Number.isNaN(Date.parse(value.replace(',', '.'))) ? fail(value, '2006') : undefined;
}

/** Re-renders a valid MicroTime in UTC, as `MicroTime.MarshalJSON` does. */
export function normalizeMicroTime(value: string): string {
  const fraction = /[.,](\d{6})/.exec(value)?.[1] ?? '000000';
  const utc = new Date(Date.parse(value.replace(',', '.'))).toISOString();
  return `${utc.slice(0, 19)}.${fraction}Z`;
}

/** `metav1.Time` renders whole seconds in UTC. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}
