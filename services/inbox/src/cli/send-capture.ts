import { lookup } from 'node:dns/promises';
import type { CaptureDetail } from '../contract/capture-json.js';
import type { Capture } from '../contract/capture-records.js';
import { deliver, type DeliveryResult, type TargetTls } from '../delivery/deliver.js';
import { buildForwardRequest, oneShotTarget } from '../delivery/forward-request.js';

// Sends a capture from the CLI's own process, the way the forwarding worker does (same request builder,
// same node:http sender): method, raw nested path and query, raw headers minus hop-by-hop with Host set for
// the target, exact body bytes. The target is the user's own (often localhost), so no egress policy.

const SEND_TIMEOUT_MS = 30_000;

/** A record of the JSON API (`GET …/requests/:id`, or an SSE event with `full=1`) as a stored capture. */
export function toCapture(d: CaptureDetail): Capture {
  return {
    id: d.id,
    receivedAt: Date.parse(d.time),
    method: d.method,
    url: d.url,
    nestedPath: d.nestedPath,
    httpVersion: d.httpVersion,
    rawHeaders: d.headers.flat(),
    remoteAddress: d.remoteAddress,
    body: Buffer.from(d.bodyBase64, 'base64'),
    bodySha256: d.bodySha256,
  };
}

/** One attempt; never rejects. */
export async function sendCapture(
  d: CaptureDetail,
  to: string,
  o: { signal: AbortSignal; tls: TargetTls | undefined },
): Promise<DeliveryResult> {
  const built = buildForwardRequest(toCapture(d), oneShotTarget(to, SEND_TIMEOUT_MS));
  if (!built.sendable) return { kind: 'failed', error: `not sent: ${built.reason}` };
  const req = built.request;
  let pinned: { address: string; family: 4 | 6 };
  try {
    const found = await lookup(req.url.hostname.replace(/^\[(.*)\]$/, '$1'));
    pinned = { address: found.address, family: found.family === 6 ? 6 : 4 };
  } catch (e: unknown) {
    const code = (e as NodeJS.ErrnoException).code ?? 'lookup failed';
    return { kind: 'failed', error: `${code}: ${req.url.hostname}` };
  }
  return deliver(req, { pinned, timeoutMs: SEND_TIMEOUT_MS, signal: o.signal, tls: o.tls });
}

/** `POST /orders?x=1`: what followed the endpoint id in the receive URL. */
export function describeCapture(d: Pick<CaptureDetail, 'method' | 'nestedPath' | 'query' | 'url'>): string {
  const path = d.nestedPath === '' ? '/' : d.nestedPath;
  return `${d.method} ${path}${d.url.includes('?') ? `?${d.query}` : ''}`;
}

/** `→ 200`, or `→ error: connection failed (ECONNREFUSED)`. */
export function describeResult(r: DeliveryResult): string {
  switch (r.kind) {
    case 'answered':
      return `→ ${r.status}`;
    case 'failed':
      return `→ error: ${r.error}`;
    case 'aborted':
      return '→ aborted';
    default: {
      const _: never = r;
      return _;
    }
  }
}
