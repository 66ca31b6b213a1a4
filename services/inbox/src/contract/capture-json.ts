import { buildBodyView, parseParams, type BodyView } from './body-view.js';
import { findHeader, toHeaderPairs } from './raw-headers.js';
import { formatRawRequest } from './raw-request.js';
import { toCaptureSignature, type CaptureSignature } from './signature-json.js';
import type { Capture, ForwardAttempt } from './capture-records.js';

/** A capture in a list and in a live event without `full=1`. */
export interface CaptureSummary {
  id: string;
  /** ISO 8601, the inbox's clock. */
  time: string;
  method: string;
  /** The raw request-target, path and query as sent. */
  url: string;
  nestedPath: string;
  /** The raw query string, without `?`. */
  query: string;
  contentType: string | null;
  bodySize: number;
  remoteAddress: string;
  /** Checked when it was received, over the stored bytes: `verified`, `failed` (why) or `not_checked`. */
  signature: CaptureSignature;
  /** In lists of an endpoint with forward targets: the latest attempt, null before the first. */
  lastForwarding?: ForwardAttempt | null;
}

/** Everything kept of a capture, for `GET …/requests/:requestId` and live events with `full=1`. */
export interface CaptureDetail extends CaptureSummary {
  endpointId: string;
  path: string;
  queryParams: Record<string, string | string[]>;
  httpVersion: string;
  /** `[name, value]` in the order and case they were sent, duplicates kept. */
  headers: Array<[string, string]>;
  bodySha256: string;
  /** The exact body bytes. */
  bodyBase64: string;
  body: BodyView;
  raw: string;
  /** Attempts to forward it to the endpoint's targets, oldest first (`GET …/requests/:requestId` only). */
  forwarding?: ForwardAttempt[];
  /** Each target's latest attempt, one per target in the order they were first tried (with `forwarding`). */
  forwardingByTarget?: ForwardAttempt[];
}

export function toCaptureSummary(c: Capture): CaptureSummary {
  const q = c.url.indexOf('?');
  return {
    id: c.id,
    time: new Date(c.receivedAt).toISOString(),
    method: c.method,
    url: c.url,
    nestedPath: c.nestedPath,
    query: q === -1 ? '' : c.url.slice(q + 1),
    contentType: findHeader(c.rawHeaders, 'content-type') ?? null,
    bodySize: c.body.length,
    remoteAddress: c.remoteAddress,
    signature: toCaptureSignature(c.signature),
  };
}

/** `maxBodyDepth`: a JSON body nested deeper is shown as text, never parsed (`body.jsonError` says why). */
export function toCaptureDetail(
  endpointId: string,
  c: Capture,
  o: { maxBodyDepth: number; forwarding?: readonly ForwardAttempt[] },
): CaptureDetail {
  const { forwarding } = o;
  const summary = toCaptureSummary(c);
  const q = c.url.indexOf('?');
  return {
    ...summary,
    endpointId,
    path: q === -1 ? c.url : c.url.slice(0, q),
    queryParams: parseParams(summary.query),
    httpVersion: c.httpVersion,
    headers: toHeaderPairs(c.rawHeaders),
    bodySha256: c.bodySha256,
    bodyBase64: c.body.toString('base64'),
    body: buildBodyView(c.body, c.rawHeaders, o.maxBodyDepth),
    raw: formatRawRequest(c),
    ...(forwarding ? { forwarding: [...forwarding], forwardingByTarget: latestByTarget(forwarding) } : {}),
  };
}

function latestByTarget(attempts: readonly ForwardAttempt[]): ForwardAttempt[] {
  const latest = new Map<string, ForwardAttempt>();
  // a Map keeps the first insertion's place: set again, a target keeps its order and takes the latest
  for (const a of attempts) latest.set(a.target, a);
  return [...latest.values()];
}
