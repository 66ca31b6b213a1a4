import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { signValue, unsignValue } from './signed-value.js';

const oldKey = 'o'.repeat(32);
const newKey = 'n'.repeat(40);
const sid = 'Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';

describe('signed cookie values', () => {
  it('appends the HMAC-SHA256 of the value, base64url, and strips it again', () => {
    const mac = createHmac('sha256', newKey).update(sid).digest('base64url');
    expect(signValue(sid, [newKey])).toBe(`${sid}.${mac}`);
    expect(unsignValue(`${sid}.${mac}`, [newKey])).toBe(sid);
  });

  it('keeps dots inside the value', () => {
    expect(unsignValue(signValue('a.b.c', [newKey]), [newKey])).toBe('a.b.c');
    expect(unsignValue(signValue('', [newKey]), [newKey])).toBe('');
  });

  it('signs with the first key and accepts any listed key, so keys can rotate', () => {
    const before = signValue(sid, [oldKey]);
    const after = signValue(sid, [newKey, oldKey]);
    expect(after).toBe(signValue(sid, [newKey]));
    expect(unsignValue(before, [newKey, oldKey])).toBe(sid);
    expect(unsignValue(after, [newKey, oldKey])).toBe(sid);
    expect(unsignValue(before, [newKey])).toBeUndefined();
  });

  it('returns undefined for anything tampered, truncated or unsigned', () => {
    const signed = signValue(sid, [newKey]);
    const mac = signed.slice(sid.length + 1);
    const flip = (c: string): string => (c === 'A' ? 'B' : 'A');
    const tampered = [
      `${flip(sid.charAt(0))}${sid.slice(1)}.${mac}`,
      `${sid}.${mac.slice(0, -1)}${flip(mac.charAt(mac.length - 1))}`,
      `${sid}.${mac.slice(0, -1)}`,
      `${sid}.${mac}=`,
      `${sid}.`,
      `${sid}x.${mac}`,
      sid,
      '',
      '.',
    ];
    for (const t of tampered) expect(unsignValue(t, [newKey, oldKey])).toBeUndefined();
  });

  it('refuses an empty key list and short keys', () => {
    expect(() => signValue(sid, [])).toThrow(new InvalidArgumentError('signing keys: none given'));
    expect(() => unsignValue(sid, [newKey, 'short'])).toThrow(
      new InvalidArgumentError('signing keys: each needs at least 32 characters'),
    );
  });
});
