import type { CaptureDetail, CaptureSummary } from '../../src/contract/capture-json.js';
import type { CircuitReport, DeadLetterJson } from '../../src/contract/forwarding-json.js';
import type { SignatureView } from '../../src/contract/signature-json.js';
import type { ForwardingEvent } from '../../src/contract/capture-records.js';

export type { CaptureDetail, CaptureSummary, CircuitReport, DeadLetterJson, ForwardingEvent, SignatureView };

/** `GET …/dead-letters`. */
export interface DeadLetterPage {
  deadLetters: DeadLetterJson[];
  nextBefore: string | null;
}

/** `GET /api/endpoints/:id` (and each item of `GET /api/endpoints`). */
export interface EndpointView {
  id: string;
  name: string;
  kind: 'anonymous' | 'account' | 'managed';
  receiveUrl: string;
  createdAt: string;
  requestCount: number;
  /** The signature preset captures are checked against (never its secret); null when none. */
  signature: SignatureView | null;
  retention: { maxRequests: number; maxAgeSeconds: number };
  /** What its receive URL answers; null: `{"ok":true,…}`. */
  response: EndpointResponse | null;
  /** A managed endpoint's forward targets. */
  forward?: unknown[];
}

/** `PUT /api/endpoints/:id/response` (lib/config's `EndpointResponse`). */
export interface EndpointResponse {
  status: number;
  headers: Array<{ name: string; value: string }>;
  body: string;
  delayMs: number;
}

/** `POST /api/endpoints`: an anonymous endpoint comes with its token, shown this once. */
export interface CreatedEndpoint {
  id: string;
  name: string;
  kind: 'anonymous' | 'account';
  receiveUrl: string;
  token?: string;
}

export interface AccountView {
  id: string;
  username: string;
}

export interface RequestPage {
  requests: CaptureSummary[];
  nextBefore: string | null;
  /** With a filter: the captures the inbox read for this page. */
  scanned?: number;
}

export interface ReplayResult {
  target: string;
  status: number;
  at: string;
}

/** An error answer of the inbox API: its `{error, code}` and status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One call to the inbox API, same origin. A token is sent as `Authorization: Bearer` (anonymous
 * endpoints); without one the browser's session cookie speaks. Writes carry the CSRF header the inbox
 * requires with a cookie.
 */
export async function callApi<T>(
  method: string,
  path: string,
  o: { token?: string | undefined; body?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (method !== 'GET') headers['x-inbox-csrf'] = '1';
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const e = (json ?? {}) as { error?: string; code?: string };
    throw new ApiError(res.status, e.code ?? 'HTTP_ERROR', e.error ?? `${res.status} ${res.statusText}`);
  }
  return json as T;
}

/** `/api/endpoints/<id>…` with the id escaped. */
export const endpointPath = (id: string, rest = ''): string =>
  `/api/endpoints/${encodeURIComponent(id)}${rest}`;

/** A file the API serves (a body, an export), with the endpoint's token when there is one. */
export async function fetchFile(path: string, token?: string): Promise<Blob> {
  const res = await fetch(path, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    credentials: 'same-origin',
  });
  if (!res.ok) throw new ApiError(res.status, 'HTTP_ERROR', `download failed: ${res.status}`);
  return res.blob();
}

/** The exact body bytes of a stored request. */
export function fetchBody(endpointId: string, requestId: string, token?: string): Promise<Blob> {
  return fetchFile(endpointPath(endpointId, `/requests/${encodeURIComponent(requestId)}/body`), token);
}
