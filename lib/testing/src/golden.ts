import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** `<dir>/in/*.yaml` in name order, each named by its file name without `.yaml`. */
export function readGoldenInputs(dir: string): Array<{ name: string; file: string }> {
  return readdirSync(join(dir, 'in'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ name: basename(f, '.yaml'), file: join(dir, 'in', f) }));
}

/**
 * `value` as a golden file holds it (JSON indented by 2, with a final newline) and the golden file `file`
 * as it is, for the test to compare. With `UPDATE_GOLDEN=1` the file is written first: review the diff.
 */
export function compareGolden(file: string, value: unknown): { got: string; want: string } {
  const got = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, got);
  }
  return { got, want: readFileSync(file, 'utf8') };
}
