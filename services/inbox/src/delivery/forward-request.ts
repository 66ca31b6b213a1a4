import { HOP_BY_HOP_HEADERS, isHttpToken, isSendableHeaderValue } from '@portcullis/kit';
import type { ForwardTarget } from '@portcullis/config';
import type { Capture } from '../contract/capture-records.js';

// What is sent to a target: the capture as received, so signatures over the body (GitHub's
// X-Hub-Signature-256, Stripe's) still verify. Headers keep their order, case and duplicates; only the
// hop-by-hop ones go, Host names the target (the original moves to X-Forwarded-Host) and Content-Length is
// recomputed from the stored bytes, in the place the original framing header had. deliver.ts ends the list
// with the `Connection` header of the connection it uses.

export interface ForwardRequest {
  url: URL;
  method: string;
  /** The request-target sent: path and query, raw. */
  path: string;
  /** Flat `[name, value, …]`, for node:http's array form (which adds no header of its own). */
  rawHeaders: string[];
  body: Buffer;
}

/** A URL given for one delivery (CLI `--to`, the inspector's replay): nested path and query appended. */
export function oneShotTarget(url: string, timeoutMs: number): ForwardTarget {
  return {
    url,
    pathMode: 'append',
    enabled: true,
    timeoutSeconds: timeoutMs / 1000,
    maxAttempts: 1,
    initialDelaySeconds: 1,
    maxDelaySeconds: 1,
    maxConcurrent: 1,
  };
}

/**
 * What is sent to a target, or why the capture cannot be: a nested path that could climb out of the target's
 * path, or a request node:http refuses to write (a header value beyond Latin-1, imported from a HAR). Either
 * holds on every attempt, so the caller records it once and does not retry.
 */
export type ForwardBuild = { sendable: true; request: ForwardRequest } | { sendable: false; reason: string };

/** What node:http refuses in a request-target (`ERR_UNESCAPED_CHARACTERS`). */
const UNSENDABLE_PATH = /[^\u0021-\u00ff]/;

/** `pathMode: append` adds what followed the endpoint id; `exact` sends to the target URL alone. */
export function buildForwardRequest(capture: Capture, target: ForwardTarget): ForwardBuild {
  const url = new URL(target.url);
  const q = capture.url.indexOf('?');
  const query = q === -1 ? '' : capture.url.slice(q + 1);
  let path = url.pathname;
  if (target.pathMode === 'append' && capture.nestedPath !== '') {
    if (hasDotDotSegment(capture.nestedPath)) {
      return {
        sendable: false,
        reason: "the nested path has a '..' segment (or %2e%2e, or ..;), which could leave the target's path",
      };
    }
    path = path.replace(/\/$/, '') + capture.nestedPath;
  }
  const targetQuery = url.search.slice(1);
  const fullQuery = [targetQuery, query].filter((s) => s !== '').join('&');
  if (fullQuery !== '' || q !== -1) path += `?${fullQuery}`;
  const rawHeaders = forwardHeaders(capture.rawHeaders, { host: url.host, bodyBytes: capture.body.length });
  const unsendable = unsendableReason({ method: capture.method, path, rawHeaders });
  if (unsendable !== undefined) return { sendable: false, reason: unsendable };
  return { sendable: true, request: { url, method: capture.method, path, rawHeaders, body: capture.body } };
}

/**
 * Whether a segment is `..` once percent-decoded (up to three times: `%252e` is `%2e` after one) and its `;`
 * parameters removed, with `\` read as `/`: what Tomcat, Jetty, Spring and IIS would climb with.
 */
export function hasDotDotSegment(path: string): boolean {
  let decoded = path;
  for (let round = 0; round < 3; round += 1) {
    decoded = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
  }
  return decoded.split(/[/\\]/).some((segment) => segment.split(';')[0] === '..');
}

/** Why node:http would throw writing this request (its checks, said without its error codes or the values). */
function unsendableReason(r: {
  method: string;
  path: string;
  rawHeaders: readonly string[];
}): string | undefined {
  if (!isHttpToken(r.method)) return 'the method is not an HTTP token';
  if (UNSENDABLE_PATH.test(r.path)) return 'the path or query has a character HTTP cannot carry unescaped';
  for (let i = 0; i + 1 < r.rawHeaders.length; i += 2) {
    const name = r.rawHeaders[i] ?? '';
    const shown = JSON.stringify(name.slice(0, 64));
    if (!isHttpToken(name)) return `the header name ${shown} is not an HTTP token`;
    if (!isSendableHeaderValue(r.rawHeaders[i + 1] ?? '')) {
      return `header ${shown} cannot be sent: a control character or one beyond Latin-1 in its value`;
    }
  }
  return undefined;
}

/** The captured headers as sent on: see the top of this file. */
export function forwardHeaders(
  rawHeaders: readonly string[],
  o: { host: string; bodyBytes: number },
): string[] {
  const dropped = new Set(HOP_BY_HOP_HEADERS);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() !== 'connection') continue;
    for (const token of (rawHeaders[i + 1] ?? '').split(',')) dropped.add(token.trim().toLowerCase());
  }
  const out = ['Host', o.host];
  let originalHost: string | undefined;
  let framed = false;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const value = rawHeaders[i + 1] ?? '';
    const lower = name.toLowerCase();
    if (lower === 'host') {
      originalHost ??= value;
    } else if (lower === 'content-length' || lower === 'transfer-encoding') {
      if (!framed) out.push('Content-Length', String(o.bodyBytes));
      framed = true;
    } else if (!dropped.has(lower)) {
      out.push(name, value);
    }
  }
  if (!framed && o.bodyBytes > 0) out.push('Content-Length', String(o.bodyBytes));
  if (originalHost !== undefined) out.push('X-Forwarded-Host', originalHost);
  return out;
}
