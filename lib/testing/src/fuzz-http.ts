import fc from 'fast-check';
import type { HttpRequestSpec } from './raw-http.js';

/** Methods a router knows, ones it does not, and ones only a WebDAV or a custom client sends. */
export const FUZZ_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'SEARCH',
  'PURGE',
  'BREW',
  'get',
  'X-CUSTOM',
] as const;

/**
 * Path segments that broke or may break routers and proxies: dot segments in every encoding and with `;`
 * parameters (Tomcat, Jetty and Spring resolve `..;` as `..`), encoded separators, NUL, spaces and line separators, overlong UTF-8, malformed escapes, query and fragment
 * delimiters, very long segments.
 */
const NASTY_SEGMENTS = [
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E%2e',
  '.%2e',
  '..%2f',
  '..%2F..%2F',
  '%2f',
  '%5c',
  '..%5c',
  '%00',
  '%20',
  '%0d%0a',
  '%E2%80%A8',
  '%C0%AE%C0%AE',
  '%FF',
  '%zz',
  '%',
  '%%25',
  '%3F',
  '%23',
  '?',
  '#',
  ';',
  ';a=b',
  '..;',
  '.;',
  '.;x',
  '..;jsessionid=1',
  '%2e%2e;',
  '%2E.;a=b;c',
  '..%3b',
  '~',
  '',
  '%u002e',
  '\\..\\',
  '%252e%252e',
  'a'.repeat(2048),
  '%F0%9F%98%80',
] as const;

/** One path segment: a nasty form, a plain word, or arbitrary text percent-encoded (a few raw bytes stay). */
export function pathSegment(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 12,
      }),
    },
  );
}

/** A path under one of `prefixes` (each starting with `/`), then segments and maybe a query string. */
export function httpPath(prefixes: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(...prefixes),
      // half the paths are a prefix as given, so the routes themselves are reached, not only the 404
      fc.oneof(fc.constant([]), fc.array(pathSegment(), { minLength: 1, maxLength: 5 })),
      fc.option(
        fc.string({
          unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
          maxLength: 40,
        }),
        { nil: undefined },
      ),
      fc.boolean(),
    )
    .map(([prefix, segments, query, trailingSlash]) => {
      const joined = segments.length === 0 ? prefix : `${prefix.replace(/\/$/, '')}/${segments.join('/')}`;
      return `${joined}${trailingSlash ? '/' : ''}${query === undefined ? '' : `?${query}`}`;
    });
}

/** A header value node:http will send: visible ASCII and spaces, sometimes long. */
export function headerValue(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 60,
    }),
    fc.constant('x'.repeat(4000)),
  );
}

/**
 * Text a user may put where it ends up in a header (a name, a claim): visible ASCII mixed with Latin-1,
 * characters beyond it (CJK, emoji), controls with CR and LF, `%`, and lone surrogates.
 */
export function userHeaderText(): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(' ', '\t', '\r', '\n', '\r\n', '\u0000', '\u007f', '%', '%25'),
      },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('李', '雷', '日本', '€', '😀', '\u2028', '\ufeff', '\ud800', '\udfff'),
      },
    ),
    minLength: 1,
    maxLength: 40,
  });
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'text/plain',
  'application/octet-stream',
  'application/grpc',
  'application/*',
  '*/*',
  ';;;',
  '',
] as const;

/** The headers a request may carry, each one maybe; `extra` adds surface-specific ones (auth forms). */
export function httpHeaders(
  extra: Record<string, fc.Arbitrary<string>> = {},
): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      'content-type': fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue()),
      accept: fc.oneof(fc.constantFrom('application/json', 'text/event-stream', '*/*'), headerValue()),
      origin: fc.oneof(fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1'), headerValue()),
      'sec-fetch-site': fc.constantFrom('cross-site', 'same-origin', 'none'),
      cookie: headerValue(),
      'x-forwarded-for': fc.oneof(fc.ipV4(), fc.ipV6(), headerValue()),
      'x-forwarded-proto': fc.constantFrom('https', 'http', 'gopher', ''),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      'last-event-id': headerValue(),
      ...extra,
    },
    { requiredKeys: [] },
  );
}

/**
 * Bodies: none, JSON of every shape (shallow: deep nesting is issue 15 finding 10, another change), text,
 * bytes, and a form.
 */
export function httpBody(): fc.Arbitrary<string | Buffer | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.json({ depthSize: 'small', maxDepth: 4 }),
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    fc
      .dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }))
      .map((d) => new URLSearchParams(d).toString()),
  );
}

/** A whole request against the given path prefixes: method, path, headers and body, all generated. */
export function httpRequest(
  prefixes: readonly string[],
  o: {
    methods?: readonly string[];
    headers?: Record<string, fc.Arbitrary<string>>;
    body?: fc.Arbitrary<string | Buffer | undefined>;
  } = {},
): fc.Arbitrary<HttpRequestSpec> {
  return fc
    .record({
      method: fc.constantFrom(...(o.methods ?? FUZZ_METHODS)),
      path: httpPath(prefixes),
      headers: httpHeaders(o.headers),
      body: o.body ?? httpBody(),
    })
    .map(({ body, ...rest }) => (body === undefined ? rest : { ...rest, body }));
}

/** Text of a request for `findInternalDetail`'s echo allowance. */
export function describeRequest(spec: HttpRequestSpec): string {
  const body =
    spec.body === undefined ? '' : Buffer.isBuffer(spec.body) ? spec.body.toString('latin1') : spec.body;
  return `${spec.method} ${spec.path} ${JSON.stringify(spec.headers ?? {})} ${body}`;
}

/**
 * Bytes no client library would send on one connection: broken request lines, bare LFs, framing
 * conflicts (Content-Length with Transfer-Encoding, two lengths), bad chunk sizes, folded and NUL
 * headers, oversized headers, and plain noise. `path` is a path of the surface, so routing is reached.
 */
export function rawRequestBytes(paths: fc.Arbitrary<string>): fc.Arbitrary<string | Buffer> {
  const host = 'Host: 127.0.0.1\r\n';
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...FUZZ_METHODS),
        paths,
        fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 x', ''),
      )
      .map(([m, p, v]) => `${m} ${p} ${v}\r\n${host}\r\n`),
    paths.map(
      (p) =>
        `POST ${p} HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\n${host}\r\n`,
    ),
    paths.map((p) => `POST ${p} HTTP/1.1\r\n${host}Content-Length: 3\r\nContent-Length: 7\r\n\r\nabcdefg`),
    fc
      .tuple(paths, fc.constantFrom('-1', '1e3', '0x10', ' 4', '99999999999999999999', ''))
      .map(([p, cl]) => `POST ${p} HTTP/1.1\r\n${host}Content-Length: ${cl}\r\n\r\nabcd`),
    fc
      .tuple(paths, fc.constantFrom('zz', '-1', 'ffffffffffffffff', '4;ext=1', '4 ', ''))
      .map(
        ([p, size]) =>
          `POST ${p} HTTP/1.1\r\n${host}Transfer-Encoding: chunked\r\n\r\n${size}\r\nabcd\r\n0\r\n\r\n`,
      ),
    paths.map((p) => `GET ${p} HTTP/1.1\n${host.replace('\r\n', '\n')}X-A: b\n\n`),
    paths.map((p) => `GET ${p} HTTP/1.1\r\n${host}X-Folded: a\r\n b\r\n\r\n`),
    paths.map((p) => `GET ${p} HTTP/1.1\r\n${host}X-Nul: a\u0000b\r\n\r\n`),
    paths.map((p) => `GET ${p} HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    paths.map((p) => `GET ${p.replace('/', '/ \u0001')} HTTP/1.1\r\n${host}\r\n`),
    fc.uint8Array({ minLength: 1, maxLength: 200 }).map((a) => Buffer.from(a)),
  );
}
