/** The units a retention is entered in, largest first, with their length in seconds. */
export const DURATION_UNITS = [
  ['days', 86_400],
  ['hours', 3600],
  ['minutes', 60],
  ['seconds', 1],
] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number][0];

/** `604800` → `{amount: 7, unit: 'days'}`: the largest unit that divides evenly, so nothing is rounded. */
export function splitDuration(seconds: number): { amount: number; unit: DurationUnit } {
  for (const [unit, size] of DURATION_UNITS) {
    if (seconds >= size && seconds % size === 0) return { amount: seconds / size, unit };
  }
  return { amount: seconds, unit: 'seconds' };
}

/** An amount of `unit` in seconds, as the API takes a retention; NaN for an amount that is not a number. */
export function toSeconds(amount: string, unit: DurationUnit): number {
  const size = DURATION_UNITS.find(([u]) => u === unit)?.[1] ?? 1;
  return amount.trim() === '' ? Number.NaN : Number(amount) * size;
}

/** `604800` → `7 days`, `5400` → `90 min`: the largest unit that divides evenly. */
export function formatAge(seconds: number): string {
  const { amount, unit } = splitDuration(seconds);
  if (unit === 'seconds') return `${amount} s`;
  if (unit === 'minutes') return `${amount} min`;
  return `${amount} ${amount === 1 ? unit.slice(0, -1) : unit}`;
}
