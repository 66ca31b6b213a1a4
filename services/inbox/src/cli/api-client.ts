import type { CaptureDetail } from '../contract/capture-json.js';
import { AuthError, NotFoundError, UnreachableError, type CliError } from './cli-errors.js';

// The inbox's JSON API as the CLI uses it, over fetch. Every failure becomes a CliError naming the host and
// the id; tokens never appear in messages.

export interface CreatedEndpoint {
  id: string;
  token: string;
  receiveUrl: string;
  createdAt: string;
}

/** What an answer that is not 2xx means to the CLI; `subject` is e.g. `endpoint abc` or `request 1-0`. */
export function toCliError(status: number, subject: string, host: string): CliError {
  switch (status) {
    case 401:
      return new AuthError(`${subject}: the token was refused by ${host} (wrong token, or unknown endpoint)`);
    case 404:
      return new NotFoundError(`${subject}: not found at ${host}`);
    default:
      return new UnreachableError(`${subject}: ${host} answered ${status}`);
  }
}

/** fetch, with network failures turned into UnreachableError. */
export async function fetchInbox(host: string, path: string, init: RequestInit = {}): Promise<Response> {
  const url = new URL(path, host);
  try {
    return await fetch(url, init);
  } catch (e: unknown) {
    if (init.signal?.aborted) throw e;
    throw new UnreachableError(`cannot reach the inbox at ${host}: ${describeFetchError(e)}`, { cause: e });
  }
}

export function describeFetchError(e: unknown): string {
  const cause = e instanceof Error ? e.cause : undefined;
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message;
  return e instanceof Error ? e.message : String(e);
}

export async function createEndpoint(host: string): Promise<CreatedEndpoint> {
  const res = await fetchInbox(host, '/api/endpoints', { method: 'POST' });
  if (res.status !== 201) throw toCliError(res.status, 'creating an endpoint', host);
  return (await res.json()) as CreatedEndpoint;
}

export async function fetchCapture(
  host: string,
  o: { endpointId: string; requestId: string; token: string },
): Promise<CaptureDetail> {
  const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/requests/${encodeURIComponent(o.requestId)}`;
  const res = await fetchInbox(host, path, { headers: { authorization: `Bearer ${o.token}` } });
  if (res.status === 404) {
    throw new NotFoundError(`request ${o.requestId} of endpoint ${o.endpointId}: not found at ${host}`);
  }
  if (res.status !== 200) throw toCliError(res.status, `endpoint ${o.endpointId}`, host);
  return (await res.json()) as CaptureDetail;
}

/** What a dead letter is to the CLI: `GET …/dead-letters`' items. */
export interface ListedDeadLetter {
  id: string;
  requestId: string;
  target: string;
}

/** Every dead letter of an endpoint (at most 1,000 are kept), newest first, a page of 100 at a time. */
export async function listDeadLetters(
  host: string,
  o: { endpointId: string; token: string },
): Promise<ListedDeadLetter[]> {
  const letters: ListedDeadLetter[] = [];
  let before: string | null = null;
  do {
    const query: string = before === null ? '' : `&before=${encodeURIComponent(before)}`;
    const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/dead-letters?limit=100${query}`;
    const res = await fetchInbox(host, path, { headers: { authorization: `Bearer ${o.token}` } });
    if (res.status !== 200) throw toCliError(res.status, `endpoint ${o.endpointId}`, host);
    const page = (await res.json()) as { deadLetters: ListedDeadLetter[]; nextBefore: string | null };
    letters.push(...page.deadLetters);
    before = page.nextBefore;
  } while (before !== null);
  return letters;
}

/** A forward target's circuit as a forwarding process last reported it (`GET …/circuits`). */
export interface ListedCircuit {
  target: string;
  state: string;
  /** ISO 8601, while the circuit is open. */
  openUntil?: string;
}

/** `GET …/circuits`: the circuits of the endpoint's forward targets. */
export async function listCircuits(
  host: string,
  o: { endpointId: string; token: string },
): Promise<ListedCircuit[]> {
  const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/circuits`;
  const res = await fetchInbox(host, path, { headers: { authorization: `Bearer ${o.token}` } });
  if (res.status !== 200) throw toCliError(res.status, `endpoint ${o.endpointId}`, host);
  return ((await res.json()) as { circuits: ListedCircuit[] }).circuits;
}

/** `POST …/dead-letters/redrive`: what became of each letter. */
export async function redriveDeadLetters(
  host: string,
  o: { endpointId: string; token: string },
): Promise<{ redriven: number; busy: number; gone: number; missing: number }> {
  const path = `/api/endpoints/${encodeURIComponent(o.endpointId)}/dead-letters/redrive`;
  const res = await fetchInbox(host, path, {
    method: 'POST',
    headers: { authorization: `Bearer ${o.token}` },
  });
  if (res.status !== 200) throw toCliError(res.status, `endpoint ${o.endpointId}`, host);
  return (await res.json()) as { redriven: number; busy: number; gone: number; missing: number };
}
