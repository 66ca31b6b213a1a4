import type { YAMLError } from 'yaml';

/**
 * A file's YAML errors as one line each, `file:line:column: message`, as editors and compilers print them.
 * The parser's message repeats the position and ends with a quoted excerpt (`… at line 4, column 1:` and
 * the source on the lines after); the position moves to the front and the excerpt goes.
 */
export function describeYamlErrors(file: string, errors: readonly YAMLError[]): string {
  return errors
    .map((e) => {
      const first = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      const at = e.linePos?.[0];
      return at ? `${file}:${at.line}:${at.col}: ${first}` : `${file}: ${first}`;
    })
    .join('; ');
}
