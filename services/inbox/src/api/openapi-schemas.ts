import { MIN_PASSWORD_CHARS } from '@portcullis/accounts';
import { MAX_FORWARD_TARGETS } from '@portcullis/config';
import { listAnsweredErrors } from '@portcullis/kit';
import { ANSWERED_ERRORS } from '../error-mapper.js';

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

/** `<ms>-<seq>`: a request id, SSE event id and paging cursor (store/stream-id.ts). */
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
};

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
      retention: obj({ maxRequests: int({ minimum: 1 }), maxAgeSeconds: int({ minimum: 0 }) }),
      requestCount: int({ minimum: 0 }),
      resource: str(),
      forward: { type: 'array', items: ref('ForwardTarget'), maxItems: MAX_FORWARD_TARGETS },
    },
    ['resource', 'forward'],
  ),
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
  RequestPage: obj({
    requests: { type: 'array', items: ref('CaptureSummary'), maxItems: 100 },
    nextBefore: { oneOf: [str({ pattern: STREAM_ID_PATTERN }), { type: 'null' }] },
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
