import { describe, expect, it } from 'vitest';
import { hashToken, isTokenHashMatch } from './token-hash.js';

describe('token hashes', () => {
  it('hashes to hex SHA-256', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('matches a token against its own hash only', () => {
    const hash = hashToken('s3cret-token');
    expect(isTokenHashMatch('s3cret-token', hash)).toBe(true);
    expect(isTokenHashMatch('s3cret-tokenx', hash)).toBe(false);
    expect(isTokenHashMatch('s3cret-toke', hash)).toBe(false);
    expect(isTokenHashMatch('', hashToken(''))).toBe(true);
  });

  it('never matches a hash that is not 64 hex digits, whatever the token', () => {
    expect(isTokenHashMatch('', '')).toBe(false);
    expect(isTokenHashMatch('x', 'not a hash')).toBe(false);
    expect(isTokenHashMatch('x', hashToken('x').toUpperCase())).toBe(false);
    expect(isTokenHashMatch('x', hashToken('x').slice(2))).toBe(false);
    // the all-zero digest stands for "no hash": it is refused even when given as the expected value
    expect(isTokenHashMatch('x', '0'.repeat(64))).toBe(false);
  });
});
