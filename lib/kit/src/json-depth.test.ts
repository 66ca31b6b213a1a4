import { describe, expect, it } from 'vitest';
import { isJsonDeeperThan } from './json-depth.js';

describe('isJsonDeeperThan', () => {
  it.each([
    { text: '1', maxDepth: 1, deeper: false },
    { text: '{}', maxDepth: 1, deeper: false },
    { text: '{"a":[]}', maxDepth: 1, deeper: true },
    { text: '[[1],[2],{"x":[3]}]', maxDepth: 3, deeper: false },
    { text: '[[1],[2],{"x":[[3]]}]', maxDepth: 3, deeper: true },
    { text: '["[[[[", "\\"[[[["]', maxDepth: 1, deeper: false },
    { text: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, maxDepth: 64, deeper: true },
  ])('$text within $maxDepth: deeper $deeper', ({ text, maxDepth, deeper }) => {
    expect(isJsonDeeperThan(text, maxDepth)).toBe(deeper);
  });
});
