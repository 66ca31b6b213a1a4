import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory.js';
import { MAX_DEAD_LETTERS_PER_ENDPOINT } from './dead-letters.js';
import { createMemoryDeadLetters } from './memory-dead-letters.js';

const letter = (endpointId: string, requestId: string) => ({
  endpointId,
  requestId,
  target: 'http://target.example/hooks',
  attempts: '3',
  last: '503',
  at: '',
});

describe('memory dead letters', () => {
  it('keeps the newest per endpoint, listed newest first and paged', async () => {
    const letters = createMemoryDeadLetters({ store: createMemoryStore(), now: () => 1_000 });
    for (let i = 0; i <= MAX_DEAD_LETTERS_PER_ENDPOINT; i++) await letters.add(letter('a', `${i}-0`));
    await letters.add(letter('b', '1-0'));
    expect(await letters.count(['a', 'b'])).toBe(MAX_DEAD_LETTERS_PER_ENDPOINT + 1);
    const [newest, second] = await letters.list('a', { limit: 2 });
    expect([newest?.requestId, second?.requestId]).toEqual([
      `${MAX_DEAD_LETTERS_PER_ENDPOINT}-0`,
      `${MAX_DEAD_LETTERS_PER_ENDPOINT - 1}-0`,
    ]);
    const next = await letters.list('a', { limit: 1, before: second?.id ?? '' });
    expect(next.map((l) => l.requestId)).toEqual([`${MAX_DEAD_LETTERS_PER_ENDPOINT - 2}-0`]);
    // the oldest went
    expect((await letters.list('a', { limit: 100_000 })).at(-1)?.requestId).toBe('1-0');
  });

  it('removes the letter of a capture no longer kept, and finds nothing the second time', async () => {
    const letters = createMemoryDeadLetters({ store: createMemoryStore() });
    await letters.add(letter('a', '1-0'));
    const [stored] = await letters.list('a', { limit: 1 });
    if (!stored) throw new Error('no letter');
    expect(await letters.redrive(stored)).toBe('gone');
    expect(await letters.redrive(stored)).toBe('missing');
    expect(await letters.count(['a'])).toBe(0);
  });
});
