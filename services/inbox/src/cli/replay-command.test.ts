import { describe, expect, it } from 'vitest';
import { describeHolds } from './replay-command.js';

describe('describeHolds', () => {
  const now = Date.parse('2026-11-29T07:00:00.000Z');

  it('says the redriven deliveries go now when no circuit holds them', () => {
    expect(describeHolds([{ target: 'http://a/', state: 'closed' }], now)).toEqual([
      'they are forwarded now',
    ]);
  });

  it('says until when an open circuit holds a target, in seconds from now', () => {
    const openUntil = '2026-11-29T07:00:17.200Z';
    expect(
      describeHolds(
        [
          { target: 'http://a/', state: 'open', openUntil },
          { target: 'http://b/', state: 'half-open' },
        ],
        now,
      ),
    ).toEqual([`to http://a/: held while its circuit is open, until ${openUntil} (in 18 s)`]);
  });
});
