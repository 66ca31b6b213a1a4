import { describe, expect, it } from 'vitest';
import { encodeIdentityValue, isIdentityHeader } from './identity-headers.js';

describe('identity headers', () => {
  it.each(['x-user-id', 'X-User-Name', 'x_user_id', 'X_USER_NAME', 'x-user_id', 'x_user-name'])(
    '%s is an identity header',
    (name) => expect(isIdentityHeader(name)).toBe(true),
  );

  it.each(['x-user', 'x-user-ids', 'xuserid', 'x-api-key'])('%s is not', (name) =>
    expect(isIdentityHeader(name)).toBe(false),
  );

  it.each([
    ['ada.l@example.com', 'ada.l@example.com'],
    ['日本 bot', '%E6%97%A5%E6%9C%AC%20bot'],
    ['李雷', '%E6%9D%8E%E9%9B%B7'],
    ['eve\r\nX-Injected: 1', 'eve%0D%0AX-Injected:%201'],
    ['100%', '100%25'],
    ['é\u0000\u007f', '%C3%A9%00%7F'],
    ['\ud800x', '%EF%BF%BDx'],
  ])('%j → %s, which decodes back', (value, encoded) => {
    expect(encodeIdentityValue(value)).toBe(encoded);
    if (!value.includes('\ud800')) expect(decodeURIComponent(encoded)).toBe(value);
  });
});
