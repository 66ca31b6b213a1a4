import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './duration.js';

describe('parseDurationMs', () => {
  it.each([
    ['0', 0],
    ['3s', 3000],
    ['250ms', 250],
    ['150us', 0.15],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['24h', 86_400_000],
    ['500ns', 0.0005],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDurationMs(text)).toBeCloseTo(ms, 9);
  });

  it.each(['', '10', 's', '3 s', '3sec', '-1s', '1h 30m', 'ten'])('rejects %j', (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});
