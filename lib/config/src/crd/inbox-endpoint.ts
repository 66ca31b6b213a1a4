import { readOrThrow, type ConfigPath, type Reader } from '../reader.js';
import type { CrdSource } from './crd-source.js';
import { endpointResponseSchema, readEndpointResponse, type EndpointResponse } from './inbox-response.js';
import {
  readSignatureRef,
  signatureRefSchema,
  type SecretKeyRef,
  type SignaturePreset,
} from './inbox-signature.js';
import { bool, int, list, obj, rule, str } from './schema.js';

export interface ForwardTarget {
  url: string;
  pathMode: 'append' | 'exact';
  enabled: boolean;
  timeoutSeconds: number;
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
  /** Deliveries to this target at once, per forwarding process. */
  maxConcurrent: number;
}

export interface InboxEndpointSpec {
  endpointId: string;
  displayName: string;
  forward: ForwardTarget[];
  retention: { maxRequests: number; maxAgeHours: number; maxBytes: number };
  /** What its receive URL answers; absent: the inbox's `{"ok":true,…}`. */
  response?: EndpointResponse;
  /** The signature each capture is checked against, its secret in a Secret of the resource's namespace. */
  signature?: { preset: SignaturePreset; secretRef: SecretKeyRef };
}

/** Unguessable and URL-safe: at least 22 base64url characters, 128 bits. */
export const ENDPOINT_ID = /^[A-Za-z0-9_-]{22,64}$/;
export const MAX_FORWARD_TARGETS = 5;
/** A target's `maxConcurrent`: the default is the worker's default in-flight count, so no limit unless set. */
export const MAX_CONCURRENT = { default: 32, min: 1, max: 1024 } as const;
/** `retention`'s fields: the schema's bounds and defaults, which the parser checks too. */
const RETENTION = {
  maxRequests: { minimum: 1, maximum: 1_000_000, default: 500 },
  maxAgeHours: { minimum: 1, maximum: 8760, default: 168 },
  // the xDS field is a uint64 and the inbox trims by count and age only: nothing caps it at 32 bits
  maxBytes: { minimum: 1024, maximum: 10_737_418_240, default: 52_428_800 },
} as const;
/** A forward target's numbers when unset; the schema's defaults. */
const TARGET_DEFAULTS = {
  timeoutSeconds: 10,
  maxAttempts: 8,
  initialDelaySeconds: 30,
  maxDelaySeconds: 3600,
};

/** Validates an InboxEndpoint's `spec`, filling defaults. Throws a `ConfigError` listing every problem. */
export function parseInboxEndpoint(source: string, spec: unknown): InboxEndpointSpec {
  return readOrThrow(source, (read) => {
    const m =
      read.map(
        spec,
        [],
        new Set(['endpointId', 'displayName', 'forward', 'retention', 'response', 'signature']),
      ) ?? {};
    const endpointId = read.str(m.endpointId, ['endpointId']) ?? '';
    if (!ENDPOINT_ID.test(endpointId)) {
      read.fail(['endpointId'], 'expected 22 to 64 URL-safe characters (A-Z, a-z, 0-9, _ and -)');
    }
    const displayName = read.str(m.displayName, ['displayName']) ?? '';
    if (displayName.length > 200) read.fail(['displayName'], 'at most 200 characters');
    const items = read.list(m.forward, ['forward']);
    if (items.length > MAX_FORWARD_TARGETS) read.fail(['forward'], `at most ${MAX_FORWARD_TARGETS} targets`);
    const forward = items.flatMap((t, i) => readTarget(read, t, ['forward', i]) ?? []);
    const r =
      m.retention == null
        ? {}
        : (read.map(m.retention, ['retention'], new Set(Object.keys(RETENTION))) ?? {});
    const count = (key: keyof typeof RETENTION): number =>
      r[key] == null ? RETENTION[key].default : read.boundedInt(r[key], ['retention', key], RETENTION[key]);
    return {
      endpointId,
      displayName,
      forward,
      retention: {
        maxRequests: count('maxRequests'),
        maxAgeHours: count('maxAgeHours'),
        maxBytes: count('maxBytes'),
      },
      ...(m.response == null ? {} : { response: readEndpointResponse(read, m.response, ['response']) }),
      ...(m.signature == null ? {} : { signature: readSignatureRef(read, m.signature, ['signature']) }),
    };
  });
}

const TARGET_KEYS = new Set(['url', 'pathMode', 'enabled', 'timeoutSeconds', 'retry', 'maxConcurrent']);

function readTarget(read: Reader, v: unknown, path: ConfigPath): ForwardTarget | undefined {
  const m = read.map(v, path, TARGET_KEYS);
  if (!m) return undefined;
  const url = read.str(m.url, [...path, 'url']) ?? '';
  if (!isHttpUrl(url)) read.fail([...path, 'url'], 'expected an absolute http or https URL');
  const pathMode = read.str(m.pathMode, [...path, 'pathMode']) ?? 'append';
  if (pathMode !== 'append' && pathMode !== 'exact')
    return read.fail([...path, 'pathMode'], 'expected append or exact');
  const retry =
    m.retry == null
      ? {}
      : (read.map(
          m.retry,
          [...path, 'retry'],
          new Set(['maxAttempts', 'initialDelaySeconds', 'maxDelaySeconds']),
        ) ?? {});
  const n = (value: unknown, at: ConfigPath, fallback: number): number =>
    value == null ? fallback : read.uint32(value, at);
  return {
    url,
    pathMode,
    enabled: m.enabled == null ? true : read.bool(m.enabled, [...path, 'enabled']),
    timeoutSeconds: n(m.timeoutSeconds, [...path, 'timeoutSeconds'], TARGET_DEFAULTS.timeoutSeconds),
    maxAttempts: n(retry.maxAttempts, [...path, 'retry', 'maxAttempts'], TARGET_DEFAULTS.maxAttempts),
    initialDelaySeconds: n(
      retry.initialDelaySeconds,
      [...path, 'retry', 'initialDelaySeconds'],
      TARGET_DEFAULTS.initialDelaySeconds,
    ),
    maxDelaySeconds: n(
      retry.maxDelaySeconds,
      [...path, 'retry', 'maxDelaySeconds'],
      TARGET_DEFAULTS.maxDelaySeconds,
    ),
    maxConcurrent: readMaxConcurrent(read, m.maxConcurrent, [...path, 'maxConcurrent']),
  };
}

function readMaxConcurrent(read: Reader, value: unknown, path: ConfigPath): number {
  const n = value == null ? MAX_CONCURRENT.default : read.uint32(value, path);
  if (n >= MAX_CONCURRENT.min && n <= MAX_CONCURRENT.max) return n;
  return read.fail(path, `expected ${MAX_CONCURRENT.min} to ${MAX_CONCURRENT.max}`, MAX_CONCURRENT.default);
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export const inboxEndpoint: CrdSource = {
  kind: 'InboxEndpoint',
  plural: 'inboxendpoints',
  singular: 'inboxendpoint',
  shortNames: ['ibe'],
  description:
    'A webhook inbox endpoint with a stable id, its display name, forward targets, retention, response and signature check.',
  spec: obj(
    {
      endpointId: str({
        pattern: ENDPOINT_ID.source,
        maxLength: 64,
        description: 'The id in /api/hook/<id>: URL-safe, at least 22 characters (128 bits). Cannot change.',
        'x-kubernetes-validations': [rule('self == oldSelf', 'endpointId is immutable')],
      }),
      displayName: str({ maxLength: 200 }),
      forward: list(
        obj(
          {
            url: str({ maxLength: 2048, pattern: '^https?://[^\\s]+$' }),
            pathMode: str({
              enum: ['append', 'exact'],
              default: 'append',
              description: 'append adds the nested path to url.',
            }),
            enabled: bool({ default: true }),
            timeoutSeconds: int({ minimum: 1, maximum: 300, default: TARGET_DEFAULTS.timeoutSeconds }),
            maxConcurrent: int({
              minimum: MAX_CONCURRENT.min,
              maximum: MAX_CONCURRENT.max,
              default: MAX_CONCURRENT.default,
              description: 'Deliveries to this target at once, per forwarding process.',
            }),
            retry: obj({
              maxAttempts: int({ minimum: 1, maximum: 50, default: TARGET_DEFAULTS.maxAttempts }),
              initialDelaySeconds: int({
                minimum: 1,
                maximum: 3600,
                default: TARGET_DEFAULTS.initialDelaySeconds,
              }),
              maxDelaySeconds: int({ minimum: 1, maximum: 86_400, default: TARGET_DEFAULTS.maxDelaySeconds }),
            }),
          },
          { required: ['url'] },
        ),
        { maxItems: MAX_FORWARD_TARGETS },
      ),
      retention: obj({
        maxRequests: int(RETENTION.maxRequests),
        maxAgeHours: int(RETENTION.maxAgeHours),
        maxBytes: int(RETENTION.maxBytes),
      }),
      response: endpointResponseSchema,
      signature: signatureRefSchema,
    },
    { required: ['endpointId'] },
  ),
  printerColumns: [
    { name: 'Endpoint', type: 'string', jsonPath: '.spec.endpointId' },
    { name: 'Display Name', type: 'string', jsonPath: '.spec.displayName' },
  ],
};
