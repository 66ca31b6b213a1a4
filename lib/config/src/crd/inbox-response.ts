import { readOrThrow, type ConfigPath, type Reader } from '../reader.js';
import { int, list, obj, rule, str, type Schema } from './schema.js';

/**
 * What a receive URL answers instead of `{"ok":true,…}`: an InboxEndpoint's `spec.response` and the
 * inbox API's `PUT …/response` body, read by this one parser.
 */
export interface EndpointResponse {
  status: number;
  headers: Array<{ name: string; value: string }>;
  /** Text; `{{body.<field>…}}` placeholders are filled from the captured request (see `BODY_PLACEHOLDER`). */
  body: string;
  /** Waited after the capture is stored, before answering. */
  delayMs: number;
}

export const RESPONSE_LIMITS = {
  minStatus: 200,
  maxStatus: 599,
  maxHeaders: 20,
  maxHeaderNameChars: 64,
  maxHeaderValueChars: 1024,
  maxBodyBytes: 64 * 1024,
  maxDelayMs: 10_000,
} as const;

/**
 * Headers an endpoint may not set: hop-by-hop ones and framing (the server owns the connection and the
 * length), cookies (the receive URL shares the inspector's origin and its session cookie), and those the
 * inbox sets for safety or to name the capture.
 */
export const REFUSED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'set-cookie',
  'content-security-policy',
  'x-content-type-options',
  'x-inbox-request-id',
]);

/** Statuses that cannot carry a body (RFC 9110): a response with one of them must have an empty `body`. */
const BODILESS_STATUSES = new Set([204, 205, 304]);

/**
 * `{{body.a.b}}`: a field of the request's JSON body (or of its urlencoded form, one level), 1 to 8 keys
 * of letters, digits, `_` and `-` (a number indexes a list). Nothing else between `{{` and `}}` is valid.
 */
export const BODY_PLACEHOLDER = /\{\{\s*body((?:\.[A-Za-z0-9_-]{1,64}){1,8})\s*\}\}/g;

const RESPONSE_KEYS = new Set(['status', 'headers', 'body', 'delayMs']);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex -- control characters (but tab) are what is refused
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Validates a response on its own (the API's body), filling defaults. Throws a `ConfigError` listing every problem. */
export function parseEndpointResponse(source: string, v: unknown): EndpointResponse {
  return readOrThrow(source, (read) => readEndpointResponse(read, v, []));
}

/** Reads a response at `path`, recording every problem in `read`; missing fields take their default. */
export function readEndpointResponse(read: Reader, v: unknown, path: ConfigPath): EndpointResponse {
  const m = read.map(v, path, RESPONSE_KEYS) ?? {};
  const status = m.status == null ? 200 : read.uint32(m.status, [...path, 'status']);
  if (status < RESPONSE_LIMITS.minStatus || status > RESPONSE_LIMITS.maxStatus) {
    read.fail(
      [...path, 'status'],
      'expected 200 to 599 (1xx are interim answers that a final one must follow, not answers)',
    );
  }
  const headers = read.list(m.headers, [...path, 'headers']);
  if (headers.length > RESPONSE_LIMITS.maxHeaders) {
    read.fail([...path, 'headers'], `at most ${RESPONSE_LIMITS.maxHeaders} headers`);
  }
  const body = read.str(m.body, [...path, 'body']) ?? '';
  if (Buffer.byteLength(body) > RESPONSE_LIMITS.maxBodyBytes) {
    read.fail([...path, 'body'], `at most ${RESPONSE_LIMITS.maxBodyBytes} bytes (64 KiB) of UTF-8`);
  }
  if (body !== '' && BODILESS_STATUSES.has(status)) {
    read.fail([...path, 'body'], `must be empty with status ${status}, which carries no body`);
  }
  const unknown = firstPlaceholder(body.replace(BODY_PLACEHOLDER, ''));
  if (unknown !== undefined) {
    read.fail(
      [...path, 'body'],
      `unknown placeholder ${JSON.stringify(unknown.slice(0, 80))}: expected {{body.<field>[.<field>…]}}`,
    );
  }
  const delayMs = m.delayMs == null ? 0 : read.uint32(m.delayMs, [...path, 'delayMs']);
  if (delayMs > RESPONSE_LIMITS.maxDelayMs) {
    read.fail([...path, 'delayMs'], `at most ${RESPONSE_LIMITS.maxDelayMs} (10 s)`);
  }
  return {
    status,
    headers: headers.flatMap((h, i) => readHeader(read, h, [...path, 'headers', i]) ?? []),
    body,
    delayMs,
  };
}

function readHeader(read: Reader, v: unknown, path: ConfigPath): { name: string; value: string } | undefined {
  const m = read.map(v, path, new Set(['name', 'value']));
  if (!m) return undefined;
  const name = read.str(m.name, [...path, 'name']) ?? '';
  const value = read.str(m.value, [...path, 'value']) ?? '';
  if (!TOKEN.test(name) || name.length > RESPONSE_LIMITS.maxHeaderNameChars) {
    return read.fail(
      [...path, 'name'],
      `expected a header name of 1 to ${RESPONSE_LIMITS.maxHeaderNameChars} token characters`,
    );
  }
  if (REFUSED_RESPONSE_HEADERS.has(name.toLowerCase())) {
    return read.fail([...path, 'name'], `'${name}' cannot be set: the inbox sets it, or it is hop-by-hop`);
  }
  if (value.length > RESPONSE_LIMITS.maxHeaderValueChars || CONTROL.test(value)) {
    return read.fail(
      [...path, 'value'],
      `at most ${RESPONSE_LIMITS.maxHeaderValueChars} characters, no control characters`,
    );
  }
  return { name, value };
}

const R = RESPONSE_LIMITS;

/** An InboxEndpoint's `spec.response`, as `readEndpointResponse` reads it. */
export const endpointResponseSchema: Schema = obj(
  {
    status: int({ minimum: R.minStatus, maximum: R.maxStatus, default: 200 }),
    headers: list(
      obj(
        {
          name: str({
            maxLength: R.maxHeaderNameChars,
            pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
            'x-kubernetes-validations': [
              rule(
                `!(self.lowerAscii() in [${[...REFUSED_RESPONSE_HEADERS].map((h) => `'${h}'`).join(', ')}])`,
                'this header cannot be set: the inbox sets it, or it is hop-by-hop',
              ),
            ],
          }),
          value: str({ maxLength: R.maxHeaderValueChars }),
        },
        { required: ['name'] },
      ),
      { maxItems: R.maxHeaders },
    ),
    body: str({
      maxLength: R.maxBodyBytes,
      description: 'Text; {{body.<field>[.<field>…]}} is replaced by that field of the request JSON body.',
    }),
    delayMs: int({ minimum: 0, maximum: R.maxDelayMs, default: 0 }),
  },
  { description: 'What the receive URL answers; absent: {"ok":true,...}.' },
);

/**
 * The first `{{…}}` in `body`, or undefined. Two searches, not a lazy regular expression: that scans to the
 * end from every `{{` of a 64 KiB body of `{{{{…` (quadratic), and only the first `{{` can open a match.
 */
function firstPlaceholder(body: string): string | undefined {
  const open = body.indexOf('{{');
  const close = open === -1 ? -1 : body.indexOf('}}', open + 2);
  return close === -1 ? undefined : body.slice(open, close + 2);
}
