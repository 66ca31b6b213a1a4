import { HEADER_VALUE_PATTERN, isHttpToken, isSendableHeaderValue } from '@portcullis/kit';
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

const FRAMING = 'the server owns the connection and the framing';
const OWN = 'the inbox sets it on every custom answer';
const ORIGIN = 'it acts on the whole origin, which receive URLs share with the inspector';

/**
 * Headers an endpoint may not set (lowercase), and why: hop-by-hop ones and framing; those the inbox sets for
 * safety or to name the capture; and those with an effect beyond the one answer. A receive URL shares the
 * inspector's origin, whose storage holds the only copy of anonymous endpoints' tokens: an endpoint's owner
 * could otherwise wipe it (`Clear-Site-Data`), send a visitor elsewhere (`Location`, `Refresh`), set cookies,
 * install policies the origin keeps (`Strict-Transport-Security`, `Alt-Svc`, `NEL`, `Report-To`,
 * `Origin-Agent-Cluster`, `Permissions-Policy`, `Accept-CH`), widen a service worker's scope, preload
 * resources (`Link`), open the origin to other sites (`Access-Control-*`, `Cross-Origin-*`) or ask a
 * visitor for credentials the browser then sends to the whole origin (`WWW-Authenticate`).
 */
const REFUSED_RESPONSE_HEADERS: ReadonlyMap<string, string> = new Map([
  ...[
    'connection',
    'keep-alive',
    'proxy-connection',
    'proxy-authenticate',
    'te',
    'trailer',
    'transfer-encoding',
    'upgrade',
    'content-length',
  ].map((h) => [h, FRAMING] as const),
  ...['content-security-policy', 'x-content-type-options', 'x-inbox-request-id'].map(
    (h) => [h, OWN] as const,
  ),
  ...[
    'set-cookie',
    'set-cookie2',
    'clear-site-data',
    'location',
    'refresh',
    'content-security-policy-report-only',
    'link',
    'service-worker-allowed',
    'strict-transport-security',
    'alt-svc',
    'origin-agent-cluster',
    'permissions-policy',
    'feature-policy',
    'nel',
    'report-to',
    'reporting-endpoints',
    'accept-ch',
    'www-authenticate',
  ].map((h) => [h, ORIGIN] as const),
]);

/** Every header beginning so is refused too: CORS (the inbox sets its own) and cross-origin isolation. */
const REFUSED_RESPONSE_HEADER_PREFIXES = ['access-control-', 'cross-origin-'] as const;

/** Why a custom answer may not carry the header `name` (any case); undefined when it may. */
export function refusedResponseHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  const reason = REFUSED_RESPONSE_HEADERS.get(lower);
  if (reason !== undefined) return reason;
  return REFUSED_RESPONSE_HEADER_PREFIXES.some((p) => lower.startsWith(p)) ? ORIGIN : undefined;
}

/** Statuses that cannot carry a body (RFC 9110): a response with one of them must have an empty `body`. */
const BODILESS_STATUSES = new Set([204, 205, 304]);

/**
 * `{{body.a.b}}`: a field of the request's JSON body (or of its urlencoded form, one level), 1 to 8 keys
 * of letters, digits, `_` and `-` (a number indexes a list). Nothing else between `{{` and `}}` is valid.
 */
export const BODY_PLACEHOLDER = /\{\{\s*body((?:\.[A-Za-z0-9_-]{1,64}){1,8})\s*\}\}/g;

const RESPONSE_KEYS = new Set(['status', 'headers', 'body', 'delayMs']);

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
  if (!isHttpToken(name) || name.length > RESPONSE_LIMITS.maxHeaderNameChars) {
    return read.fail(
      [...path, 'name'],
      `expected a header name of 1 to ${RESPONSE_LIMITS.maxHeaderNameChars} token characters`,
    );
  }
  const refused = refusedResponseHeader(name);
  if (refused !== undefined) return read.fail([...path, 'name'], `'${name}' cannot be set: ${refused}`);
  if (value.length > RESPONSE_LIMITS.maxHeaderValueChars || !isSendableHeaderValue(value)) {
    return read.fail(
      [...path, 'value'],
      `at most ${RESPONSE_LIMITS.maxHeaderValueChars} characters of tab, visible ASCII, space or Latin-1 (up to U+00FF): no control character, nothing beyond Latin-1`,
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
                [
                  `!(self.lowerAscii() in [${[...REFUSED_RESPONSE_HEADERS.keys()].map((h) => `'${h}'`).join(', ')}])`,
                  ...REFUSED_RESPONSE_HEADER_PREFIXES.map((p) => `!self.lowerAscii().startsWith('${p}')`),
                ].join(' && '),
                'this header cannot be set: it is hop-by-hop, the inbox sets it, or it acts on the whole origin',
              ),
            ],
          }),
          value: str({ maxLength: R.maxHeaderValueChars, pattern: HEADER_VALUE_PATTERN }),
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
