import { MIN_PASSWORD_CHARS } from '@portcullis/accounts';
import {
  HMAC_ALGORITHMS,
  HMAC_ENCODINGS,
  MAX_FORWARD_TARGETS,
  MAX_SECRET_CHARS,
  MAX_TOLERANCE_SECONDS,
  RESPONSE_LIMITS,
  SIGNATURE_PROVIDERS,
} from '@portcullis/config';
import { listAnsweredErrors } from '@portcullis/kit';
import { ANSWERED_ERRORS } from '../error-mapper.js';
import { MAX_SHARES_PER_ENDPOINT } from './share-routes.js';
import { IMPORT_MAX_ENTRIES } from '../export/har-import.js';

// The JSON Schemas (2020-12, as OpenAPI 3.1 has them) of what the management API reads and answers, for
// openapi-document.ts. They describe capture-json.ts, endpoint-routes.ts, request-actions.ts and
// account-routes.ts; services/inbox/test/openapi-contract.test.ts runs Schemathesis against them.

/** A JSON Schema object; loose on purpose: the document is checked by an OpenAPI 3.1 validator in tests. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Every `code` an error body of the management API or a receive URL can carry. */
export const ERROR_CODES = listAnsweredErrors(ANSWERED_ERRORS).map((type) => type.code);

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
/** An object with exactly these properties, all required unless listed in `optional`. */
const obj = (properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: false,
});
const iso = str({ format: 'date-time' });

/** `<ms>-<seq>`: a request id, SSE event id and paging cursor (contract/stream-id.ts). */
export const STREAM_ID_PATTERN = '^[0-9]{1,16}-[0-9]{1,16}$';
/** lib/config's `ENDPOINT_ID`. */
export const ENDPOINT_ID_PATTERN = '^[A-Za-z0-9_-]{22,64}$';

const forwardTarget = obj({
  url: str({ format: 'uri' }),
  pathMode: { enum: ['append', 'exact'] },
  enabled: { type: 'boolean' },
  timeoutSeconds: int({ minimum: 0 }),
  maxAttempts: int({ minimum: 0 }),
  initialDelaySeconds: int({ minimum: 0 }),
  maxDelaySeconds: int({ minimum: 0 }),
  maxConcurrent: int({ minimum: 1 }),
});

const forwardAttempt = obj(
  {
    target: str(),
    attempt: int({ minimum: 0 }),
    status: int({ minimum: 100, maximum: 999 }),
    error: str(),
    at: iso,
    nextAttemptAt: iso,
    outcome: { enum: ['delivered', 'retrying', 'dead', 'redriven'] },
  },
  ['status', 'error', 'nextAttemptAt'],
);

const params = {
  type: 'object',
  additionalProperties: { oneOf: [str(), { type: 'array', items: str() }] },
};

const bodyView: JsonSchema = {
  oneOf: [
    obj({ kind: { const: 'empty' } }),
    obj({ kind: { const: 'json' }, value: {} }),
    obj({ kind: { const: 'form' }, fields: params }),
    obj({ kind: { const: 'text' }, text: str(), jsonError: str() }, ['jsonError']),
    obj({ kind: { const: 'none' }, reason: { enum: ['binary', 'encoded'] } }),
  ],
};

const signatureSettings = {
  provider: { enum: [...SIGNATURE_PROVIDERS] },
  toleranceSeconds: int({
    minimum: 1,
    maximum: MAX_TOLERANCE_SECONDS,
    description: 'stripe, slack, standard-webhooks',
  }),
  header: str({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$", description: 'hmac' }),
  algorithm: { enum: [...HMAC_ALGORITHMS] },
  encoding: { enum: [...HMAC_ENCODINGS] },
  prefix: str({ pattern: '^[\\x20-\\x7e]{0,64}$' }),
};
const SIGNATURE_OPTIONAL = ['toleranceSeconds', 'header', 'algorithm', 'encoding', 'prefix'];

const captureSignature: JsonSchema = {
  oneOf: [
    obj({ status: { const: 'verified' }, provider: signatureSettings.provider }),
    obj({
      status: { const: 'failed' },
      provider: signatureSettings.provider,
      reason: { enum: ['missing_header', 'bad_format', 'mismatch', 'timestamp_outside_tolerance'] },
      message: str(),
    }),
    obj({ status: { const: 'not_checked' } }),
  ],
};

const summaryProperties = {
  id: str({ pattern: STREAM_ID_PATTERN }),
  time: iso,
  method: str(),
  url: str(),
  nestedPath: str(),
  query: str(),
  contentType: { type: ['string', 'null'] },
  bodySize: int({ minimum: 0 }),
  remoteAddress: str(),
  signature: ref('CaptureSignature'),
};

const endpointResponse = {
  type: 'object',
  description:
    'What the receive URL answers. Refused header names (any case): hop-by-hop ones, Content-Length, Content-Security-Policy, X-Content-Type-Options, X-Inbox-Request-Id, and those acting on the whole origin (Set-Cookie, Clear-Site-Data, Location, Refresh, Link, Access-Control-*, Cross-Origin-*, …; see docs/api.md). Values: tab, visible ASCII, space and Latin-1 only. A body with 204, 205 or 304 is refused. `{{body.<field>[.<field>…]}}` in the body is replaced by that field of the request JSON body.',
  properties: {
    status: int({ minimum: RESPONSE_LIMITS.minStatus, maximum: RESPONSE_LIMITS.maxStatus, default: 200 }),
    headers: {
      type: 'array',
      maxItems: RESPONSE_LIMITS.maxHeaders,
      items: {
        type: 'object',
        properties: {
          name: str({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$" }),
          value: str({
            maxLength: RESPONSE_LIMITS.maxHeaderValueChars,
            pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$',
          }),
        },
        required: ['name', 'value'],
        additionalProperties: false,
      },
    },
    body: str({ description: 'Text, at most 64 KiB of UTF-8.' }),
    delayMs: int({ minimum: 0, maximum: RESPONSE_LIMITS.maxDelayMs, default: 0 }),
  },
  additionalProperties: false,
};

const retention = obj({ maxRequests: int({ minimum: 1 }), maxAgeSeconds: int({ minimum: 0 }) });

const endpointKind = { enum: ['anonymous', 'account', 'managed'] };
const name = str({ maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]*$' });

export const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Error: obj({ error: str(), code: { enum: [...ERROR_CODES] } }),
  EndpointName: name,
  NewEndpoint: { type: 'object', properties: { name } },
  Rename: { type: 'object', properties: { name }, required: ['name'] },
  CreatedEndpoint: obj(
    {
      id: str({ pattern: ENDPOINT_ID_PATTERN }),
      name,
      kind: { enum: ['anonymous', 'account'] },
      receiveUrl: str({ format: 'uri' }),
      createdAt: iso,
      token: str({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    },
    ['token'],
  ),
  Endpoint: obj(
    {
      id: str({ pattern: ENDPOINT_ID_PATTERN }),
      name: str(),
      kind: endpointKind,
      receiveUrl: str({ format: 'uri' }),
      createdAt: iso,
      retention,
      requestCount: int({ minimum: 0 }),
      response: { oneOf: [ref('EndpointResponse'), { type: 'null' }] },
      resource: str(),
      forward: { type: 'array', items: ref('ForwardTarget'), maxItems: MAX_FORWARD_TARGETS },
      signature: { oneOf: [ref('Signature'), { type: 'null' }] },
    },
    ['resource', 'forward'],
  ),
  SignatureSettings: obj(
    { ...signatureSettings, secret: str({ minLength: 1, maxLength: MAX_SECRET_CHARS, writeOnly: true }) },
    SIGNATURE_OPTIONAL,
  ),
  Signature: obj({ ...signatureSettings, secretSet: { const: true } }, SIGNATURE_OPTIONAL),
  CaptureSignature: captureSignature,
  EndpointResponse: endpointResponse,
  ResponseAnswer: obj({
    response: { ...endpointResponse, required: ['status', 'headers', 'body', 'delayMs'] },
  }),
  SetRetention: {
    type: 'object',
    description:
      'Each from 1 to its ceiling (INBOX_RETENTION_MAX_REQUESTS, INBOX_RETENTION_MAX_AGE); a missing one is the ceiling.',
    properties: { maxRequests: int({ minimum: 1 }), maxAgeSeconds: int({ minimum: 1 }) },
    additionalProperties: false,
  },
  Retention: retention,
  EndpointList: obj({ endpoints: { type: 'array', items: ref('Endpoint') } }),
  ForwardTarget: forwardTarget,
  ForwardAttempt: forwardAttempt,
  CaptureSummary: obj(
    { ...summaryProperties, lastForwarding: { oneOf: [ref('ForwardAttempt'), { type: 'null' }] } },
    ['lastForwarding'],
  ),
  CaptureDetail: obj(
    {
      ...summaryProperties,
      endpointId: str({ pattern: ENDPOINT_ID_PATTERN }),
      path: str(),
      queryParams: params,
      httpVersion: str(),
      headers: {
        type: 'array',
        items: { type: 'array', prefixItems: [str(), str()], minItems: 2, maxItems: 2 },
      },
      bodySha256: str({ pattern: '^[0-9a-f]{64}$' }),
      bodyBase64: str({ contentEncoding: 'base64' }),
      body: ref('BodyView'),
      raw: str(),
      forwarding: { type: 'array', items: ref('ForwardAttempt') },
      forwardingByTarget: {
        type: 'array',
        items: ref('ForwardAttempt'),
        description: "Each target's latest attempt.",
      },
    },
    ['forwarding', 'forwardingByTarget'],
  ),
  BodyView: bodyView,
  RequestPage: obj(
    {
      requests: { type: 'array', items: ref('CaptureSummary'), maxItems: 100 },
      nextBefore: { oneOf: [str({ pattern: STREAM_ID_PATTERN }), { type: 'null' }] },
      scanned: int({ minimum: 0, description: 'With a filter: the captures read to make this page.' }),
    },
    ['scanned'],
  ),
  Har: {
    type: 'object',
    description: 'A HAR 1.2 log (at most 1000 entries); see the README for the fields read.',
    properties: {
      log: {
        type: 'object',
        properties: { entries: { type: 'array', maxItems: IMPORT_MAX_ENTRIES } },
        required: ['entries'],
      },
    },
    required: ['log'],
  },
  ImportResult: obj({
    imported: int({ minimum: 0 }),
    requestIds: { type: 'array', items: str({ pattern: STREAM_ID_PATTERN }) },
  }),
  ReplayTarget: {
    type: 'object',
    properties: { to: str({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?:' }) },
    required: ['to'],
  },
  DeadLetter: obj({
    id: str({ pattern: STREAM_ID_PATTERN }),
    requestId: str({ pattern: STREAM_ID_PATTERN }),
    target: str(),
    attempts: int({ minimum: 1 }),
    last: str({ description: 'The last status, or the last error.' }),
    at: iso,
  }),
  DeadLetterPage: obj({
    deadLetters: { type: 'array', items: ref('DeadLetter'), maxItems: 100 },
    nextBefore: { oneOf: [str({ pattern: STREAM_ID_PATTERN }), { type: 'null' }] },
  }),
  Redriven: obj({ redriven: ref('DeadLetter') }),
  RedriveCounts: obj({
    redriven: int({ minimum: 0 }),
    busy: int({ minimum: 0, description: 'Being forwarded to another target: left in the dead letters.' }),
    gone: int({ minimum: 0, description: 'The capture is no longer kept: letter removed.' }),
    missing: int({ minimum: 0, description: 'Redriven meanwhile by another caller.' }),
  }),
  Circuits: obj({
    circuits: {
      type: 'array',
      items: obj(
        {
          worker: str(),
          target: str(),
          state: { enum: ['closed', 'open', 'half-open'] },
          failures: int({ minimum: 0 }),
          openUntil: iso,
        },
        ['openUntil'],
      ),
    },
  }),
  ReplayResult: obj({ target: str({ format: 'uri' }), path: str(), status: int(), at: iso }),
  CreatedShare: obj({
    id: str({ pattern: ENDPOINT_ID_PATTERN }),
    token: str({ pattern: '^[A-Za-z0-9_-]{43}$' }),
    url: str({ format: 'uri' }),
    createdAt: iso,
  }),
  ShareList: obj({
    shares: {
      type: 'array',
      items: obj({ id: str({ pattern: ENDPOINT_ID_PATTERN }), createdAt: iso }),
      maxItems: MAX_SHARES_PER_ENDPOINT,
    },
  }),
  ManagedEndpointList: obj({
    endpoints: {
      type: 'array',
      items: obj({
        id: str({ pattern: ENDPOINT_ID_PATTERN }),
        name: str(),
        resource: str(),
        receiveUrl: str({ format: 'uri' }),
        createdAt: iso,
        forward: { type: 'array', items: ref('ForwardTarget'), maxItems: MAX_FORWARD_TARGETS },
        requestCount: int({ minimum: 0 }),
        lastCaptureAt: { oneOf: [iso, { type: 'null' }] },
      }),
    },
  }),
  NewAccount: {
    type: 'object',
    properties: {
      username: str({ pattern: '^[A-Za-z0-9_.@-]{1,64}$' }),
      password: str({ minLength: MIN_PASSWORD_CHARS, description: 'At least 8 characters (graphemes).' }),
    },
    required: ['username', 'password'],
  },
  Credentials: {
    type: 'object',
    properties: { username: str(), password: str() },
    required: ['username', 'password'],
  },
  Account: obj({ id: str(), username: str(), createdAt: iso }),
  AccountAnswer: obj({ account: ref('Account') }),
  Session: obj({ account: { oneOf: [ref('Account'), { type: 'null' }] } }),
  Captured: obj({ ok: { const: true }, requestId: str({ pattern: STREAM_ID_PATTERN }) }),
  Health: obj({ status: { const: 'ok' } }),
  Ready: obj({ status: { const: 'ready' } }),
};
