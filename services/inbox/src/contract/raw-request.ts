import { isText } from './body-view.js';
import { toHeaderPairs } from './raw-headers.js';

/**
 * The request as it came over HTTP/1.x: request line, header lines exactly as sent (order, case,
 * duplicates), a blank line and the body when it is text; a binary body is replaced by a note of its size
 * (the exact bytes are in `bodyBase64`). Lines end with CRLF, as on the wire.
 */
export function formatRawRequest(r: {
  method: string;
  url: string;
  httpVersion: string;
  rawHeaders: readonly string[];
  body: Buffer;
}): string {
  const head = [
    `${r.method} ${r.url} HTTP/${r.httpVersion}`,
    ...toHeaderPairs(r.rawHeaders).map(([name, value]) => `${name}: ${value}`),
  ];
  const body =
    r.body.length === 0
      ? ''
      : isText(r.body)
        ? r.body.toString('utf8')
        : `[binary body: ${r.body.length} bytes, not shown]`;
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}
