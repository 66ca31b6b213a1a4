import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, decodeSecretsKey } from './secret-box.js';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, and never shows the secret in the sealed form', () => {
    const sealed = box.seal('It’s a Secret to Everybody', 'endpoint-a');
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('Secret');
    expect(box.open(sealed, 'endpoint-a')).toBe('It’s a Secret to Everybody');
    expect(box.seal('same', 'endpoint-a')).not.toBe(box.seal('same', 'endpoint-a'));
  });

  it('refuses another endpoint, another key, a changed byte', () => {
    const sealed = box.seal('s3cret', 'endpoint-a');
    expect(() => box.open(sealed, 'endpoint-b')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'endpoint-a')).toThrow();
    const [v, iv, data, tag] = sealed.split('.');
    const flipped = Buffer.from(data ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open([v, iv, flipped.toString('base64url'), tag].join('.'), 'endpoint-a')).toThrow();
    expect(() => box.open('plain', 'endpoint-a')).toThrow('not a sealed secret');
  });

  it('reads a key as 64 hex digits or 32 bytes of base64', () => {
    const key = randomBytes(32);
    expect(decodeSecretsKey(key.toString('hex'))).toEqual(key);
    expect(decodeSecretsKey(key.toString('base64'))).toEqual(key);
    expect(decodeSecretsKey(key.toString('base64url'))).toEqual(key);
    expect(decodeSecretsKey('too short')).toBeUndefined();
    expect(decodeSecretsKey(randomBytes(16).toString('hex'))).toBeUndefined();
  });
});
