import { describe, expect, it } from 'vitest';
import { buildBodyView, parseParams } from './body-view.js';
import { formatRawRequest } from './raw-request.js';

const view = (body: string | Buffer, headers: string[] = []) =>
  buildBodyView(typeof body === 'string' ? Buffer.from(body) : body, headers, 64);

describe('body view', () => {
  it('issue 15: shows JSON nested deeper than the limit as text, so its answer can be serialised', () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect(view(deep, ['content-type', 'application/json'])).toEqual({
      kind: 'text',
      text: deep,
      jsonError: 'body is nested deeper than 64 levels',
    });
    const atLimit = `${'['.repeat(64)}${']'.repeat(64)}`;
    expect(view(atLimit, ['content-type', 'application/json'])).toMatchObject({ kind: 'json' });
  });

  it('parses JSON, +json and forms, whatever the header case', () => {
    expect(view('{"a": [1]}\n', ['Content-Type', 'application/json; charset=utf-8'])).toEqual({
      kind: 'json',
      value: { a: [1] },
    });
    expect(view('1', ['content-type', 'application/vnd.api+json'])).toEqual({ kind: 'json', value: 1 });
    expect(view('a=1&b=x+y&a=2', ['CONTENT-TYPE', 'application/x-www-form-urlencoded'])).toEqual({
      kind: 'form',
      fields: { a: ['1', '2'], b: 'x y' },
    });
  });

  it('shows text, JSON that does not parse as text, and nothing for binary or compressed bodies', () => {
    expect(view('hi', ['Content-Type', 'text/plain'])).toEqual({ kind: 'text', text: 'hi' });
    expect(view('hi')).toEqual({ kind: 'text', text: 'hi' });
    expect(view('{nope', ['content-type', 'application/json'])).toMatchObject({
      kind: 'text',
      text: '{nope',
    });
    expect(view(Buffer.from([0xff, 0xfe, 0x00]))).toEqual({ kind: 'none', reason: 'binary' });
    expect(view('a\u0000b')).toEqual({ kind: 'none', reason: 'binary' });
    expect(view('plain', ['Content-Encoding', 'gzip'])).toEqual({ kind: 'none', reason: 'encoded' });
    expect(view('')).toEqual({ kind: 'empty' });
  });

  it('parses query strings the same way', () => {
    expect(parseParams('x=1&x=2&y=%20&z')).toEqual({ x: ['1', '2'], y: ' ', z: '' });
  });
});

describe('raw request', () => {
  it('rebuilds the request from the raw headers, body included when it is text', () => {
    const raw = formatRawRequest({
      method: 'POST',
      url: '/api/hook/x/y?q=1',
      httpVersion: '1.1',
      rawHeaders: ['Host', 'h', 'X-Dup', '1', 'x-dup', '2'],
      body: Buffer.from('{"a":1}'),
    });
    expect(raw).toBe('POST /api/hook/x/y?q=1 HTTP/1.1\r\nHost: h\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n{"a":1}');
  });

  it('notes the size of a binary body instead of its bytes', () => {
    const raw = formatRawRequest({
      method: 'PUT',
      url: '/',
      httpVersion: '1.0',
      rawHeaders: [],
      body: Buffer.from([0xc3, 0x28]),
    });
    expect(raw).toBe('PUT / HTTP/1.0\r\n\r\n[binary body: 2 bytes, not shown]');
  });
});
