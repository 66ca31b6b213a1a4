import { describe, expect, it } from 'vitest';
import { splitHookUrl } from './hook-url.js';

describe('splitHookUrl', () => {
  it('splits id, nested path and raw query without decoding', () => {
    expect(splitHookUrl('/api/hook/abc')).toEqual({ endpointId: 'abc', nestedPath: '', query: '' });
    expect(splitHookUrl('/api/hook/abc/')).toEqual({ endpointId: 'abc', nestedPath: '/', query: '' });
    expect(splitHookUrl('/api/hook/abc/a/%2e%2e/b?x=1&x=2&y=%20?z')).toEqual({
      endpointId: 'abc',
      nestedPath: '/a/%2e%2e/b',
      query: 'x=1&x=2&y=%20?z',
    });
  });

  it('refuses other paths', () => {
    expect(splitHookUrl('/api/hook/')).toBeUndefined();
    expect(splitHookUrl('/api/hooks/abc')).toBeUndefined();
    expect(splitHookUrl('/api/hook?x=/api/hook/abc')).toBeUndefined();
  });
});
