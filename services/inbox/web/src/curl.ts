import type { CaptureDetail } from './api.js';
import { asText, fromBase64 } from './bytes.js';

/** Headers curl sets from the command itself; copying them would contradict it. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect']);

/** Single-quoted for a POSIX shell: everything literal, `'` closed, escaped and reopened. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A shell command that sends the stored request again to `url`: same method, headers in their order and
 * case (duplicates kept), and exactly the same body bytes. A text body is passed as an argument; any other
 * body (binary, compressed, with NUL) comes from `printf` with octal escapes on stdin, byte for byte.
 */
export function toCurl(d: Pick<CaptureDetail, 'method' | 'headers' | 'bodyBase64'>, url: string): string {
  const parts = ['curl', '--globoff', '-X', shellQuote(d.method), shellQuote(url)];
  for (const [name, value] of d.headers) {
    if (OWN_HEADERS.has(name.toLowerCase())) continue;
    // curl drops a header given as `Name:`; `Name;` sends it empty
    parts.push('-H', shellQuote(value === '' ? `${name};` : `${name}: ${value}`));
  }
  const body = fromBase64(d.bodyBase64);
  if (body.length === 0) return parts.join(' ');
  const text = asText(body);
  if (text !== undefined) return [...parts, '--data-binary', shellQuote(text)].join(' ');
  let escaped = '';
  for (const b of body) escaped += `\\${b.toString(8).padStart(3, '0')}`;
  return `printf '${escaped}' | ${[...parts, '--data-binary', '@-'].join(' ')}`;
}
