import { describe, expect, it } from 'vitest';
import { RequestError } from '../errors.js';
import { checkKey } from './memcached.js';

describe('memcached keys', () => {
  it('accepts keys of up to 250 bytes', () => {
    expect(() => checkKey('d_k_v_'.padEnd(250, 'x'))).not.toThrow();
  });

  it('rejects longer keys with a clear error', () => {
    expect(() => checkKey('x'.repeat(251))).toThrow(
      new RequestError('cache key is 251 bytes long; the object cache (memcached) allows at most 250'),
    );
  });

  it('rejects whitespace and control characters', () => {
    for (const key of ['d_k_a b_60', 'd_k_a\tb_60', 'd_k_a\nb_60', 'd_k_a\u0000b_60', 'd_k_a\u007fb_60']) {
      expect(() => checkKey(key)).toThrow(RequestError);
    }
  });
});
