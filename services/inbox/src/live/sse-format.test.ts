import { describe, expect, it } from 'vitest';
import { formatOnce } from './sse-format.js';

describe('formatOnce', () => {
  it('formats an object once however many subscribers send it, and each object for itself', () => {
    const calls: string[] = [];
    const format = formatOnce((c: { id: string }, suffix: string) => {
      calls.push(c.id);
      return `${c.id}${suffix}`;
    });
    const [a, b] = [{ id: 'a' }, { id: 'b' }];
    const texts = [format(a, '!'), format(a, '!'), format(b, '?'), format(a, '!'), format({ id: 'a' }, '.')];
    expect([texts, calls]).toEqual([
      ['a!', 'a!', 'b?', 'a!', 'a.'],
      ['a', 'b', 'a'],
    ]);
  });
});
