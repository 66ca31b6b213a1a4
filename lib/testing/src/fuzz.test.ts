import { describe, expect, it } from 'vitest';
import { checkAnswer, findFramingConflict, findInternalDetail } from './fuzz.js';

describe('findInternalDetail', () => {
  it.each([
    ['    at Object.parse (/app/services/inbox/src/store/memory.ts:12:3)', 'stack frame'],
    ['at file:///app/dist/gateway.mjs:1:2', 'stack frame'],
    ['failed in dispatch.ts:88', 'source line'],
    ['Cannot find module /app/node_modules/x', 'install path'],
    ['TypeError: Cannot read properties of undefined', 'error name'],
    [
      '{"error":"Request path contains unescaped characters","code":"ERR_UNESCAPED_CHARACTERS"}',
      'node error code',
    ],
    ['connect ECONNREFUSED 10.0.0.1:80', 'node error code'],
    ['WRONGTYPE Operation against a key holding the wrong kind of value', 'driver internals'],
  ])('finds %j', (text, kind) => {
    expect(findInternalDetail(text)).toMatch(new RegExp(`^${kind}: `));
  });

  it.each([
    '{"error":"Invalid token","code":"UNAUTHENTICATED"}',
    '{"error":"body is not valid JSON: Unexpected token \'x\', \\"x\\" is not valid JSON","code":"INVALID_REQUEST"}',
    '{"error":"Unsupported Media Type","code":"UNSUPPORTED_MEDIA_TYPE"}',
    'OK',
  ])('passes %j', (text) => {
    expect(findInternalDetail(text)).toBeUndefined();
  });

  it('passes a detail the request itself carried, as an echo does', () => {
    expect(findInternalDetail('no route for GET /x/a.ts:1', 'GET /x/a.ts:1')).toBeUndefined();
  });
});

describe('checkAnswer', () => {
  it('fails a 5xx unless deliberate', () => {
    expect(checkAnswer({ status: 500, body: '{}' })).toMatch(/^status 500/);
    expect(checkAnswer({ status: 503, body: '{}' }, { deliberate: [503] })).toBeUndefined();
    expect(checkAnswer({ status: 404, body: '{}' })).toBeUndefined();
  });
});

describe('findFramingConflict', () => {
  const head = 'POST / HTTP/1.1\r\nHost: a\r\n';
  it.each([
    [
      `${head}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      'Content-Length with Transfer-Encoding',
    ],
    [
      `${head}transfer-encoding: chunked\r\ncontent-length: 5\r\n\r\n`,
      'Content-Length with Transfer-Encoding',
    ],
    [`${head}Content-Length: 3\r\nContent-Length: 7\r\n\r\nabcdefg`, 'two Content-Lengths (3, 7)'],
  ])('finds the conflict in %j', (bytes, conflict) => {
    expect(findFramingConflict(bytes)).toBe(conflict);
  });

  it.each([
    `${head}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc`,
    `${head}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    // headers of a request behind the first one are that request's
    `${head}Content-Length: 0\r\n\r\nPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n`,
  ])('passes %j', (bytes) => {
    expect(findFramingConflict(bytes)).toBeUndefined();
  });
});
