import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every program `.ci/run` installs when missing is a prerequisite of `npm test`: README's Tests section and
// CONTRIBUTING name each one, so a machine set up from the docs runs every test (issue 39: prometheus and
// promtool were missing).

const repo = join(import.meta.dirname, '..');
const read = (file: string): string => readFileSync(join(repo, file), 'utf8');

/** The programs `.ci/run` checks for with `command -v` (two on one line for prometheus and promtool). */
function ciPrograms(): string[] {
  const lines = read('.ci/run')
    .split('\n')
    .filter((line) => line.includes('missing+='));
  return [
    ...new Set(lines.flatMap((line) => [...line.matchAll(/command -v ([\w.-]+)/g)].map((m) => m[1] ?? ''))),
  ];
}

/** README's Tests section up to its table of peers. */
function readmePrerequisites(): string {
  const text = read('README.md');
  const start = text.indexOf('\n## Tests\n');
  return text.slice(start, text.indexOf('\n| real peer', start));
}

describe('test prerequisites', () => {
  const programs = ciPrograms();

  it('reads the programs .ci/run installs', () => {
    expect(programs).toEqual(
      expect.arrayContaining(['redis-server', 'chromium', 'python3', 'prometheus', 'promtool']),
    );
  });

  // python3 is written "Python 3.11+" in both
  it.each([
    ['README.md', readmePrerequisites()],
    ['CONTRIBUTING.md', read('CONTRIBUTING.md')],
  ])('%s names each of them', (_page, text) => {
    const unnamed = programs.filter((p) => p !== 'python3' && !text.includes(`\`${p}\``));
    expect(unnamed).toEqual([]);
  });
});
