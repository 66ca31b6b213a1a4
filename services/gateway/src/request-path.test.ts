import { describe, expect, it } from 'vitest';
import { isPlainTarget, parseRequestPath, splitTarget } from './request-path.js';

function thrownBy(url: string): unknown {
  try {
    parseRequestPath(url, 'api');
  } catch (err: unknown) {
    return err;
  }
  return undefined;
}

describe('parseRequestPath', () => {
  it.each([
    { url: '/api', relPath: '', rawSegments: [] },
    { url: '/api/v1/a%20b/?x=%2F', relPath: 'v1/a b', rawSegments: ['v1', 'a%20b'], search: '?x=%2F' },
    { url: '/api/v1/x/../%2e%2e/y', relPath: 'y', rawSegments: ['y'] },
    { url: '/api/%41%3F%23', relPath: 'A?#', rawSegments: ['%41%3F%23'] },
    { url: '/api//v1//', relPath: 'v1', rawSegments: ['v1'] },
    { url: '/api/a;b/...;x/..a;', relPath: 'a;b/...;x/..a;', rawSegments: ['a;b', '...;x', '..a;'] },
  ])('splits $url', ({ url, relPath, rawSegments, search = '' }) => {
    expect(parseRequestPath(url, 'api')).toEqual({ relPath, rawSegments, search });
  });

  it.each([
    { url: '/api/../apix/y', status: 404, message: 'Route not found' },
    { url: '/api/a%2fb', status: 400, message: 'path has an escaped "/" or "\\" in a segment' },
    { url: '/api/a%5Cb', status: 400, message: 'path has an escaped "/" or "\\" in a segment' },
    { url: '/api/%C0%AF', status: 400, message: 'path has an escape that is not UTF-8' },
    ...['/api/up/..;/x', '/api/.;x', '/api/a/%2E%2e;j=1/b', '/api/..%3B', '/api/.%2e;a;b'].map((url) => ({
      url,
      status: 400,
      message: 'path has a dot segment with ";" parameters',
    })),
  ])('refuses $url with $status', ({ url, status, message }) => {
    expect(thrownBy(url)).toMatchObject({ status, message });
  });

  it('keeps the decoder’s error as the cause of a refused escape', () => {
    expect((thrownBy('/api/%C0%AF') as Error).cause).toBeInstanceOf(URIError);
  });
});

describe('the plain-target fast path (issue 36)', () => {
  const plain = [
    '/api',
    '/api/',
    '/api?',
    '/api/v1/orders/42/items?x=1&y=%20',
    "/api/it's/a;b=c/~x/@y:z/(1)*2+3,4!$&=",
    '/api/a..b/...;x/.x/x./..a;?q=../x',
    '/api/file.json?a=%zz&b=?c',
  ];
  const notPlain = [
    '//api/x',
    '/api/a%20b',
    '/api/./x',
    '/api/x/..',
    '/api/x/../y?q',
    '/api/a\\b',
    '/api/a b',
    '/api/x#frag',
    "/api/x?q='",
    '/api/é',
    '/api/{x}',
    'http://h/api/x',
  ];

  it.each(plain)('splits %s as the URL parser does', (url) => {
    expect(isPlainTarget(url)).toBe(true);
    const parsed = new URL(url, 'http://gateway');
    expect(splitTarget(url)).toEqual({ pathname: parsed.pathname, search: parsed.search });
  });

  it.each(notPlain)('leaves %s to the URL parser', (url) => {
    expect(isPlainTarget(url)).toBe(false);
  });
});
