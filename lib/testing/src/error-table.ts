import { readFileSync } from 'node:fs';
import { listAnsweredErrors, type ErrorClass } from '@portcullis/kit';

export interface DocumentedError {
  code: string;
  status: number;
}

/**
 * The rows of the first table under a README's `## Errors` heading whose header is `code | status | when`
 * (any case), one code per row: the code in backticks, the status a number.
 */
export function readErrorTable(readmePath: string): DocumentedError[] {
  const lines = readFileSync(readmePath, 'utf8').split('\n');
  const section = lines.findIndex((l) => l.trim() === '## Errors');
  if (section < 0) throw new Error(`${readmePath}: no "## Errors" section`);
  const cells = (line: string): string[] =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const header = lines.findIndex(
    (l, i) => i > section && cells(l).join(' ').toLowerCase() === 'code status when',
  );
  if (header < 0) throw new Error(`${readmePath}: no "code | status | when" table under "## Errors"`);
  const rows: DocumentedError[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [code = '', status = ''] = cells(line);
    const m = /^`([A-Z0-9_]+)`$/.exec(code);
    if (!m?.[1] || !/^\d{3}$/.test(status)) throw new Error(`${readmePath}: bad errors row: ${line}`);
    rows.push({ code: m[1], status: Number(status) });
  }
  return rows;
}

/**
 * How a README's errors table and the classes a service's mapper made from `answered` answers as themselves
 * (kit's `listAnsweredErrors`: the edge's too; of status 500 only `INTERNAL`) differ: codes answered but not
 * documented, documented but not answered, documented with another status or more than once.
 */
export function compareErrorTable(
  readmePath: string,
  answered: readonly ErrorClass[],
): { undocumented: string[]; notAnswered: string[]; wrongStatus: string[]; repeated: string[] } {
  const documented = readErrorTable(readmePath);
  const byCode = new Map(listAnsweredErrors(answered).map((t) => [t.code, t.status]));
  const docCodes = documented.map((d) => d.code);
  return {
    undocumented: [...byCode.keys()].filter((code) => !docCodes.includes(code)).sort(),
    notAnswered: docCodes.filter((code) => !byCode.has(code)).sort(),
    wrongStatus: documented
      .filter((d) => byCode.has(d.code) && byCode.get(d.code) !== d.status)
      .map((d) => `${d.code}: documented ${d.status}, answers ${byCode.get(d.code)}`),
    repeated: docCodes.filter((code, i) => docCodes.indexOf(code) !== i),
  };
}
