import { describe, expect, it } from 'vitest';
import { shellQuote, toCurl } from './curl.js';

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

describe('copy as cURL', () => {
  it('keeps the method, header order, case and duplicates, and leaves out what curl sets itself', () => {
    const cmd = toCurl(
      {
        method: 'PUT',
        headers: [
          ['Host', 'inbox.example'],
          ['X-B', '2'],
          ['x-a', '1'],
          ['X-B', 'again'],
          ['Content-Length', '0'],
          ['X-Empty', ''],
        ],
        bodyBase64: '',
      },
      'https://inbox.example/api/hook/abc/x?y=1',
    );
    expect(cmd).toBe(
      "curl --globoff -X 'PUT' 'https://inbox.example/api/hook/abc/x?y=1' -H 'X-B: 2' -H 'x-a: 1' -H 'X-B: again' -H 'X-Empty;'",
    );
  });

  it('passes a text body as one quoted argument, quotes and newlines included', () => {
    const cmd = toCurl(
      { method: 'POST', headers: [], bodyBase64: b64(`{"it's":"a\nb"}`) },
      'http://localhost/h',
    );
    expect(cmd).toBe(`curl --globoff -X 'POST' 'http://localhost/h' --data-binary '{"it'\\''s":"a\nb"}'`);
  });

  it('sends any other body through printf octal escapes on stdin', () => {
    const cmd = toCurl(
      { method: 'POST', headers: [], bodyBase64: b64(Buffer.from([0xff, 0, 0x41])) },
      'http://h/',
    );
    expect(cmd).toBe(`printf '\\377\\000\\101' | curl --globoff -X 'POST' 'http://h/' --data-binary @-`);
  });

  it('quotes for a POSIX shell', () => {
    expect(shellQuote(`a'b`)).toBe(`'a'\\''b'`);
    expect(shellQuote('$(rm -rf /)')).toBe(`'$(rm -rf /)'`);
  });
});
