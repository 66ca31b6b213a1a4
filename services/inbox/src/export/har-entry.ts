import { findHeader, toHeaderPairs } from '../contract/raw-headers.js';
import type { Capture } from '../contract/capture-records.js';

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as the inbox writes it. HAR describes what a
// browser sent and got back; a capture is only the request, so the response is the spec's "no response"
// (status 0), and what HAR has no field for is in custom fields, which the spec allows when they start with
// an underscore: `_requestId`, `_remoteAddress`, `_bodySha256`, and `postData._bodyBase64`.

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarPostData {
  mimeType: string;
  /** The body as UTF-8 text; replacement characters where it is not UTF-8 (then `_bodyBase64` is exact). */
  text: string;
  /** The exact body bytes, present only when `text` cannot hold them (not UTF-8: binary, compressed). */
  _bodyBase64?: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: HarPostData;
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    comment: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _requestId: string;
  _remoteAddress: string;
  _bodySha256: string;
}

export const HAR_CREATOR = { name: 'portcullis-inbox', version: '1.0' } as const;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

/** One capture as a HAR entry; `origin` (the inbox's public one) makes the raw request-target absolute. */
export function toHarEntry(c: Capture, origin: string): HarEntry {
  const q = c.url.indexOf('?');
  const query = q === -1 ? '' : c.url.slice(q + 1);
  const contentType = findHeader(c.rawHeaders, 'content-type') ?? '';
  return {
    startedDateTime: new Date(c.receivedAt).toISOString(),
    time: 0,
    request: {
      method: c.method,
      url: c.url.startsWith('/') ? `${origin}${c.url}` : c.url,
      httpVersion: `HTTP/${c.httpVersion}`,
      cookies: parseCookies(findHeader(c.rawHeaders, 'cookie') ?? ''),
      headers: toHeaderPairs(c.rawHeaders).map(([name, value]) => ({ name, value })),
      queryString: [...new URLSearchParams(query)].map(([name, value]) => ({ name, value })),
      ...(c.body.length === 0 ? {} : { postData: toPostData(c.body, contentType) }),
      headersSize: -1,
      bodySize: c.body.length,
    },
    response: {
      status: 0,
      statusText: '',
      httpVersion: '',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: '' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      comment: 'captured by the inbox, which does not keep its answers',
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _requestId: c.id,
    _remoteAddress: c.remoteAddress,
    _bodySha256: c.bodySha256,
  };
}

function toPostData(body: Buffer, mimeType: string): HarPostData {
  try {
    return { mimeType, text: strictUtf8.decode(body) };
  } catch {
    return { mimeType, text: lenientUtf8.decode(body), _bodyBase64: body.toString('base64') };
  }
}

function parseCookies(header: string): HarNameValue[] {
  return header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => {
      const eq = part.indexOf('=');
      return { name: part.slice(0, eq), value: part.slice(eq + 1) };
    });
}
