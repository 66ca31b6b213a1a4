/** An aligned plain-text table: the first column padded right, the others (figures) padded left. */
export function formatAligned(lines: ReadonlyArray<readonly string[]>): string {
  const widths = (lines[0] ?? []).map((_, c) => Math.max(...lines.map((line) => line[c]?.length ?? 0)));
  return lines
    .map((line) =>
      line
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

/** A markdown table, the first column left-aligned and the others (figures) right-aligned. */
export function formatMarkdownTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  const line = (c: readonly string[]): string => `| ${c.join(' | ')} |`;
  return [line(header), line(header.map((_, c) => (c === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}
