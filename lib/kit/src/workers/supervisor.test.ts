import { describe, expect, it } from 'vitest';
import { restartDelayMs } from './supervisor.js';

describe('restartDelayMs', () => {
  it('doubles from 0.1 s with each quick exit in a row, up to 10 s', () => {
    expect([0, 1, 2, 6, 7, 20].map(restartDelayMs)).toEqual([100, 200, 400, 6400, 10_000, 10_000]);
  });
});
