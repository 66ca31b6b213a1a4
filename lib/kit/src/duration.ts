const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go-style duration (`300ms`, `1h30m`, `1.5s`, `0`) into milliseconds, as upstream's settings do.
 * Returns `undefined` when the text is not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const start = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== start) return undefined;
    const [, amount, unit] = m;
    const factor = unit === undefined ? undefined : UNIT_MS[unit];
    if (amount === undefined || factor === undefined) return undefined;
    total += Number(amount) * factor;
  }
  return total;
}
