import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignaturePreset } from '@portcullis/config';
import { findHeader } from '../contract/raw-headers.js';
import type { SignatureCheck, SignatureFailure } from '../contract/capture-records.js';

/** What a signature is checked over: the capture's headers as sent and its exact body bytes. */
export interface SignedRequest {
  rawHeaders: readonly string[];
  body: Buffer;
  /** The inbox's clock, for the providers whose signature carries a timestamp. */
  nowMs: number;
}

type Outcome = { ok: true } | { ok: false; reason: SignatureFailure; message: string };

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * Checks a request's signature as its provider documents it: one HMAC over the body (and the provider's
 * prefix), compared in constant time. Never throws for anything the sender controls.
 */
export function verifySignature(preset: SignaturePreset, secret: string, r: SignedRequest): SignatureCheck {
  const outcome = check(preset, secret, r);
  return outcome.ok
    ? { status: 'verified', provider: preset.provider }
    : { status: 'failed', provider: preset.provider, reason: outcome.reason, message: outcome.message };
}

function check(p: SignaturePreset, secret: string, r: SignedRequest): Outcome {
  switch (p.provider) {
    case 'github':
      return checkGithub(secret, r);
    case 'stripe':
      return checkStripe(secret, r, p.toleranceSeconds);
    case 'slack':
      return checkSlack(secret, r, p.toleranceSeconds);
    case 'shopify':
      return checkShopify(secret, r);
    case 'standard-webhooks':
      return checkStandardWebhooks(secret, r, p.toleranceSeconds);
    case 'hmac':
      return checkHmac(secret, r, p);
    default: {
      const unknown: never = p;
      return unknown;
    }
  }
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. */
function checkGithub(secret: string, r: SignedRequest): Outcome {
  const header = 'X-Hub-Signature-256';
  const value = findHeader(r.rawHeaders, header);
  if (value === undefined) return missing(header);
  const hex = value.startsWith('sha256=') ? value.slice(7) : '';
  if (!HEX_SHA256.test(hex)) return badFormat(`${header}: expected sha256=<64 hex digits>`);
  return compare(hmac('sha256', secret, [r.body]), [Buffer.from(hex, 'hex')]);
}

/** `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=…]`: HMAC-SHA256 of `<t>.<body>`; any `v1` may match. */
function checkStripe(secret: string, r: SignedRequest, toleranceSeconds: number): Outcome {
  const header = 'Stripe-Signature';
  const value = findHeader(r.rawHeaders, header);
  if (value === undefined) return missing(header);
  const items = value.split(',').map((item) => {
    const eq = item.indexOf('=');
    return eq === -1 ? ['', ''] : [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
  });
  const t = items.find(([k]) => k === 't')?.[1] ?? '';
  const v1 = items.filter(([k, v]) => k === 'v1' && HEX_SHA256.test(v ?? '')).map(([, v]) => v ?? '');
  if (!UNIX_SECONDS.test(t) || v1.length === 0) {
    return badFormat(`${header}: expected t=<timestamp>,v1=<64 hex digits>`);
  }
  const expected = hmac('sha256', secret, [`${t}.`, r.body]);
  return compareTimed(
    expected,
    v1.map((v) => Buffer.from(v, 'hex')),
    { t, toleranceSeconds, r },
  );
}

/** `X-Slack-Signature: v0=<hex>` of `v0:<X-Slack-Request-Timestamp>:<body>`. */
function checkSlack(secret: string, r: SignedRequest, toleranceSeconds: number): Outcome {
  const header = 'X-Slack-Signature';
  const tsHeader = 'X-Slack-Request-Timestamp';
  const value = findHeader(r.rawHeaders, header);
  if (value === undefined) return missing(header);
  const t = findHeader(r.rawHeaders, tsHeader);
  if (t === undefined) return missing(tsHeader);
  const hex = value.startsWith('v0=') ? value.slice(3) : '';
  if (!HEX_SHA256.test(hex)) return badFormat(`${header}: expected v0=<64 hex digits>`);
  if (!UNIX_SECONDS.test(t)) return badFormat(`${tsHeader}: expected a Unix time in seconds`);
  const expected = hmac('sha256', secret, [`v0:${t}:`, r.body]);
  return compareTimed(expected, [Buffer.from(hex, 'hex')], { t, toleranceSeconds, r });
}

/** `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>`. */
function checkShopify(secret: string, r: SignedRequest): Outcome {
  const header = 'X-Shopify-Hmac-Sha256';
  const value = findHeader(r.rawHeaders, header);
  if (value === undefined) return missing(header);
  if (value === '' || !BASE64.test(value)) return badFormat(`${header}: expected base64`);
  return compare(hmac('sha256', secret, [r.body]), [Buffer.from(value, 'base64')]);
}

/**
 * Standard Webhooks (Svix): `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64> …`
 * (space-separated; any `v1` may match), HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed with the base64
 * bytes after `whsec_`. Svix's own `svix-*` header names are read when the `webhook-*` ones are absent.
 */
function checkStandardWebhooks(secret: string, r: SignedRequest, toleranceSeconds: number): Outcome {
  const isSvix =
    findHeader(r.rawHeaders, 'webhook-signature') === undefined &&
    findHeader(r.rawHeaders, 'svix-signature') !== undefined;
  const prefix = isSvix ? 'svix' : 'webhook';
  const get = (name: string): string | undefined => findHeader(r.rawHeaders, `${prefix}-${name}`);
  const [id, t, value] = [get('id'), get('timestamp'), get('signature')];
  if (value === undefined) return missing(`${prefix}-signature`);
  if (id === undefined) return missing(`${prefix}-id`);
  if (t === undefined) return missing(`${prefix}-timestamp`);
  const v1 = value
    .split(' ')
    .filter((s) => s.startsWith('v1,') && BASE64.test(s.slice(3)) && s.length > 3)
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  if (v1.length === 0) return badFormat(`${prefix}-signature: expected v1,<base64> entries`);
  if (!UNIX_SECONDS.test(t)) return badFormat(`${prefix}-timestamp: expected a Unix time in seconds`);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = hmac('sha256', key, [`${id}.${t}.`, r.body]);
  return compareTimed(expected, v1, { t, toleranceSeconds, r });
}

/** `<header>: <prefix><hex or base64 HMAC of the body>`. */
function checkHmac(
  secret: string,
  r: SignedRequest,
  p: Extract<SignaturePreset, { provider: 'hmac' }>,
): Outcome {
  const value = findHeader(r.rawHeaders, p.header);
  if (value === undefined) return missing(p.header);
  const digest = value.startsWith(p.prefix) ? value.slice(p.prefix.length) : undefined;
  const shape = p.encoding === 'hex' ? /^(?:[0-9a-fA-F]{2})+$/ : BASE64;
  if (digest === undefined || digest === '' || !shape.test(digest)) {
    return badFormat(`${p.header}: expected ${p.prefix}<${p.encoding} digest>`);
  }
  return compare(hmac(p.algorithm, secret, [r.body]), [Buffer.from(digest, p.encoding)]);
}

function hmac(algorithm: string, key: string | Buffer, parts: ReadonlyArray<string | Buffer>): Buffer {
  const h = createHmac(algorithm, key);
  for (const part of parts) h.update(part);
  return h.digest();
}

/** Constant time for digests of the expected length; a wrong length is a mismatch at once. */
function isMatch(expected: Buffer, candidates: readonly Buffer[]): boolean {
  let matched = false;
  for (const c of candidates) {
    if (c.length === expected.length && timingSafeEqual(c, expected)) matched = true;
  }
  return matched;
}

function compare(expected: Buffer, candidates: readonly Buffer[]): Outcome {
  return isMatch(expected, candidates)
    ? { ok: true }
    : { ok: false, reason: 'mismatch', message: 'the signature does not match the body' };
}

/** The signature first, then its timestamp: a valid but old signature says so. */
function compareTimed(
  expected: Buffer,
  candidates: readonly Buffer[],
  o: { t: string; toleranceSeconds: number; r: SignedRequest },
): Outcome {
  const matched = compare(expected, candidates);
  if (!matched.ok) return matched;
  const skewSeconds = Math.abs(o.r.nowMs / 1000 - Number(o.t));
  if (skewSeconds <= o.toleranceSeconds) return matched;
  return {
    ok: false,
    reason: 'timestamp_outside_tolerance',
    message: `signed ${Math.round(skewSeconds)} s away from the inbox's clock, tolerance ${o.toleranceSeconds} s`,
  };
}

function missing(header: string): Outcome {
  return { ok: false, reason: 'missing_header', message: `no ${header} header` };
}

function badFormat(message: string): Outcome {
  return { ok: false, reason: 'bad_format', message };
}
