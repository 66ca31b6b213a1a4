import type { Row } from './report.js';

export type Measurement = Omit<Row, 'ceiling'> & { errorsByLabel: Map<string, number> };

/** One line per kind of wrong answer: `errors in "<scenario>": <count> × <label>`. */
export function formatErrors(measurements: readonly Measurement[]): string[] {
  return measurements.flatMap((m) =>
    [...m.errorsByLabel].map(([label, count]) => `errors in "${m.scenario}": ${count} × ${label}`),
  );
}
