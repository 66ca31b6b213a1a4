import { createHash } from 'node:crypto';
import type { CaptureInput } from '../contract/capture-records.js';

/** Entries one import takes at most. */
export const IMPORT_MAX_ENTRIES = 1000;
/** Problems listed in one refusal; the rest are counted. */
const MAX_PROBLEMS_LISTED = 20;

const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface ImportOptions {
  endpointId: string;
  /** Each body at most this (the inbox's `INBOX_MAX_BODY_BYTES`). */
  maxBodyBytes: number;
  /** The import's time: each capture's `receivedAt`. */
  receivedAt: number;
}

/**
 * A HAR's requests as captures of `endpointId`, oldest `startedDateTime` first (file order when a time is
 * missing or invalid), or every problem found. The body is `postData._bodyBase64` when present (the exact
 * bytes, as the inbox exports them), else `postData.text` as UTF-8, else empty. The headers are kept as
 * listed, but HTTP/2 pseudo-headers (`:authority`, …), which are not request headers. The nested path is
 * what follows `/api/hook/<id>` in the URL's raw path (an inbox's export), else the whole raw path.
 */
export function readHarCaptures(
  har: unknown,
  o: ImportOptions,
): { captures: CaptureInput[]; problems: [] } | { captures?: undefined; problems: string[] } {
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) return { problems: ['expected a HAR: {"log": {"entries": [...]}}'] };
  if (entries.length > IMPORT_MAX_ENTRIES) {
    return { problems: [`log.entries: at most ${IMPORT_MAX_ENTRIES} per import, got ${entries.length}`] };
  }
  const problems: string[] = [];
  const read = entries.map((entry: unknown, i) => readEntry(entry, { at: `log.entries[${i}]`, o, problems }));
  if (problems.length > 0) {
    const more = problems.length - MAX_PROBLEMS_LISTED;
    return { problems: [...problems.slice(0, MAX_PROBLEMS_LISTED), ...(more > 0 ? [`${more} more`] : [])] };
  }
  const dated = read.map((r, i) => ({ r, i, t: r ? r.startedMs : NaN }));
  if (dated.every((d) => !Number.isNaN(d.t))) dated.sort((a, b) => a.t - b.t || a.i - b.i);
  return { captures: dated.flatMap((d) => (d.r ? [d.r.capture] : [])), problems: [] };
}

interface Request {
  method?: unknown;
  url?: unknown;
  httpVersion?: unknown;
  headers?: unknown;
  postData?: unknown;
}

interface Entry {
  request?: unknown;
  startedDateTime?: unknown;
}

function readEntry(
  raw: unknown,
  { at, o, problems }: { at: string; o: ImportOptions; problems: string[] },
): { capture: CaptureInput; startedMs: number } | undefined {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Entry;
  const req = entry.request as Request | null | undefined;
  const before = problems.length;
  if (typeof req !== 'object' || req === null) {
    problems.push(`${at}.request: expected an object`);
    return undefined;
  }
  if (typeof req.method !== 'string' || !METHOD.test(req.method))
    problems.push(`${at}.request.method: expected a method`);
  const target = typeof req.url === 'string' ? toRequestTarget(req.url) : undefined;
  if (target === undefined) problems.push(`${at}.request.url: expected an absolute URL or a path`);
  const rawHeaders = readHeaders(req.headers, `${at}.request.headers`, problems);
  const body = readBody(req.postData, `${at}.request.postData`, problems);
  if (body && body.length > o.maxBodyBytes) {
    problems.push(
      `${at}.request.postData: body of ${body.length} bytes, over INBOX_MAX_BODY_BYTES (${o.maxBodyBytes})`,
    );
  }
  if (problems.length > before || !target || !body || !rawHeaders || typeof req.method !== 'string')
    return undefined;
  const version = /^HTTP\/(\d(?:\.\d)?)$/i.exec(typeof req.httpVersion === 'string' ? req.httpVersion : '');
  const nestedPath = toNestedPath(target.path);
  return {
    startedMs: typeof entry.startedDateTime === 'string' ? Date.parse(entry.startedDateTime) : NaN,
    capture: {
      receivedAt: o.receivedAt,
      method: req.method,
      url: `/api/hook/${o.endpointId}${nestedPath}${target.query === undefined ? '' : `?${target.query}`}`,
      nestedPath,
      httpVersion: version?.[1] ?? '1.1',
      rawHeaders,
      remoteAddress: 'import',
      body,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    },
  };
}

/** The raw path and query of an absolute URL (or of a path), never normalised; the fragment dropped. */
function toRequestTarget(url: string): { path: string; query: string | undefined } | undefined {
  const rest = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '').replace(/#.*/s, '');
  const target = rest === '' ? '/' : rest.startsWith('?') ? `/${rest}` : rest;
  // eslint-disable-next-line no-control-regex -- control characters and spaces never reach a request line
  if (!target.startsWith('/') || /[\u0000-\u0020\u007f]/.test(target)) return undefined;
  const q = target.indexOf('?');
  return q === -1
    ? { path: target, query: undefined }
    : { path: target.slice(0, q), query: target.slice(q + 1) };
}

function toNestedPath(path: string): string {
  const m = /^\/api\/hook\/[A-Za-z0-9_-]+(\/.*)?$/s.exec(path);
  return m ? (m[1] ?? '') : path;
}

function readHeaders(raw: unknown, at: string, problems: string[]): string[] | undefined {
  if (!Array.isArray(raw)) {
    problems.push(`${at}: expected a list of {name, value}`);
    return undefined;
  }
  const flat: string[] = [];
  for (const [i, h] of raw.entries()) {
    const { name, value } = (typeof h === 'object' && h !== null ? h : {}) as {
      name?: unknown;
      value?: unknown;
    };
    if (typeof name === 'string' && name.startsWith(':')) continue;
    // a header value holds no CR, LF or NUL
    if (
      typeof name !== 'string' ||
      !HEADER_NAME.test(name) ||
      typeof value !== 'string' ||
      /[\r\n]/.test(value) ||
      value.includes('\0')
    ) {
      problems.push(`${at}[${i}]: expected {name, value} of a valid header`);
      continue;
    }
    flat.push(name, value);
  }
  return flat;
}

function readBody(postData: unknown, at: string, problems: string[]): Buffer | undefined {
  if (postData === undefined) return Buffer.alloc(0);
  const p = (typeof postData === 'object' && postData !== null ? postData : {}) as {
    text?: unknown;
    _bodyBase64?: unknown;
  };
  if (p._bodyBase64 !== undefined) {
    if (typeof p._bodyBase64 === 'string' && BASE64.test(p._bodyBase64))
      return Buffer.from(p._bodyBase64, 'base64');
    problems.push(`${at}._bodyBase64: expected base64`);
    return undefined;
  }
  if (p.text === undefined) return Buffer.alloc(0);
  if (typeof p.text === 'string') return Buffer.from(p.text, 'utf8');
  problems.push(`${at}.text: expected a string`);
  return undefined;
}
