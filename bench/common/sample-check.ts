const SAMPLE_CALLS = 5;

/**
 * Makes a few calls one after the other; `call` resolves to `undefined` for a right answer, else to a short
 * label of what was wrong. Wrong answers by `sample: <label>`, a throw counting as one.
 */
export async function checkSample(call: () => Promise<string | undefined>): Promise<Map<string, number>> {
  const errors = new Map<string, number>();
  for (let i = 0; i < SAMPLE_CALLS; i++) {
    const problem = await call().catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
    if (problem === undefined) continue;
    const label = `sample: ${problem}`;
    errors.set(label, (errors.get(label) ?? 0) + 1);
  }
  return errors;
}
