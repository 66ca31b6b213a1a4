import { readEndpointResponse, type EndpointResponse } from './inbox-response.js';
import { readSignatureRef, type SecretKeyRef, type SignaturePreset } from './inbox-signature.js';
import { readOrThrow, type ConfigPath, type Reader } from './reader.js';

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
export const RETENTION_DEFAULTS = { maxRequests: 500, maxAgeHours: 168, maxBytes: 52_428_800 } as const;

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
        : (read.map(m.retention, ['retention'], new Set(Object.keys(RETENTION_DEFAULTS))) ?? {});
    const count = (key: keyof typeof RETENTION_DEFAULTS): number => {
      const n = r[key] == null ? RETENTION_DEFAULTS[key] : read.uint32(r[key], ['retention', key]);
      return n >= 1 ? n : read.fail(['retention', key], 'must be at least 1', RETENTION_DEFAULTS[key]);
    };
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
    timeoutSeconds: n(m.timeoutSeconds, [...path, 'timeoutSeconds'], 10),
    maxAttempts: n(retry.maxAttempts, [...path, 'retry', 'maxAttempts'], 8),
    initialDelaySeconds: n(retry.initialDelaySeconds, [...path, 'retry', 'initialDelaySeconds'], 30),
    maxDelaySeconds: n(retry.maxDelaySeconds, [...path, 'retry', 'maxDelaySeconds'], 3600),
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
