import { describe, expect, it } from 'vitest';
import { BadJsonError } from './errors.js';
import { mergeData, parseBody, parseQuery, toResponseBody } from './request-data.js';

describe('request data', () => {
  it('merges query < body < path parameters and sets userId from the caller only', () => {
    expect(
      mergeData({
        query: { id: 'q', page: '2', userId: 'spoofed' },
        body: { id: 'b', name: 'x', userId: 'spoofed' },
        params: { id: 'Path-Case' },
        userId: 'u-1',
      }),
    ).toEqual({ id: 'Path-Case', page: '2', name: 'x', userId: 'u-1' });
    expect(mergeData({ query: { userId: 'x' }, body: {}, params: {}, userId: undefined })).toEqual({});
  });

  it('reads JSON and form bodies, repeated names as lists, JSON within the depth limit', async () => {
    expect(await parseBody('application/json; charset=utf-8', Buffer.from('{"a":1,"b":[1,2]}'), 2)).toEqual({
      a: 1,
      b: [1, 2],
    });
    expect(await parseBody('application/x-www-form-urlencoded', Buffer.from('a=1&a=2&b=%C3%A9'), 2)).toEqual({
      a: ['1', '2'],
      b: 'é',
    });
    expect(await parseBody('text/plain', Buffer.from('hello'), 2)).toEqual({});
    expect(await parseBody('application/json', Buffer.from('[1,2]'), 2)).toEqual({});
    expect(parseQuery('x=1&y=&x=3')).toEqual({ x: ['1', '3'], y: '' });
    await expect(parseBody('application/json', Buffer.from('{nope'), 2)).rejects.toThrow(BadJsonError);
    await expect(parseBody('application/json', Buffer.from('{"a":[[1]]}'), 2)).rejects.toMatchObject({
      status: 400,
      code: 'BODY_TOO_DEEP',
    });
  });

  it('reads the text fields of a multipart body, repeated names as lists, files left out', async () => {
    const form = new FormData();
    form.append('name', 'Zoë');
    form.append('tag', 'a');
    form.append('tag', 'b');
    form.append('avatar', new Blob([Buffer.from([0, 1, 2])]), 'me.png');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    expect(await parseBody(request.headers.get('content-type') ?? '', body, 2)).toEqual({
      name: 'Zoë',
      tag: ['a', 'b'],
    });
    await expect(
      parseBody('multipart/form-data; boundary=xyz', Buffer.from('not multipart at all'), 2),
    ).rejects.toMatchObject({ status: 400, code: 'BAD_MULTIPART' });
  });

  it('turns return values into bodies', () => {
    expect(toResponseBody('done')).toEqual({ message: 'done' });
    expect(toResponseBody(undefined)).toBeNull();
    expect(toResponseBody([1])).toEqual([1]);
  });
});
