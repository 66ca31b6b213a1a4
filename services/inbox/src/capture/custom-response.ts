import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { FastifyReply } from 'fastify';
import { BODY_PLACEHOLDER, refusedResponseHeader, type EndpointResponse } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import type { CaptureInput } from '../contract/capture-records.js';
import { buildBodyView, type BodyView } from '../contract/body-view.js';

/**
 * Set on every custom answer and never settable: a receive URL shares the inspector's origin, so a body an
 * endpoint's owner wrote must not run there as a page (a script could read the visitor's endpoints).
 */
const SAFETY_HEADERS = {
  'content-security-policy': "sandbox; default-src 'none'",
  'x-content-type-options': 'nosniff',
} as const;

/**
 * The body with each `{{body.a.b}}` replaced by that field of the captured request's JSON body (or
 * urlencoded form): a string as it is, a number or boolean as JSON text, anything else (missing, an
 * object, a list, null, a body that is neither) as nothing. Values are inserted as text, never escaped or
 * evaluated; the result is at most the template plus the captured body's size per placeholder.
 */
export function renderResponseBody(
  template: string,
  capture: Pick<CaptureInput, 'body' | 'rawHeaders'>,
  maxBodyDepth: number,
): string {
  let view: BodyView | undefined;
  return template.replace(BODY_PLACEHOLDER, (_match, path: string) => {
    view ??= buildBodyView(capture.body, capture.rawHeaders, maxBodyDepth);
    return toText(lookUp(view, path.slice(1).split('.')));
  });
}

function lookUp(view: BodyView, keys: readonly string[]): unknown {
  if (view.kind === 'form') return keys.length === 1 ? view.fields[keys[0] ?? ''] : undefined;
  if (view.kind !== 'json') return undefined;
  let value: unknown = view.value;
  for (const key of keys) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return '';
}

/**
 * Waits `delayMs`, or less: until the sender goes away, or the server closes (`stop`), when the answer is
 * sent at once (the capture is already stored; only the wait is lost). Holds no store resource meanwhile.
 */
export function waitDelay(delayMs: number, stop: AbortSignal, gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // listeners removed each time: `stop` lives as long as the server and sees every delayed answer
    const done = (): void => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      gone.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, delayMs);
    if (stop.aborted || gone.aborted) return done();
    stop.addEventListener('abort', done);
    gone.addEventListener('abort', done);
  });
}

/**
 * Sends the endpoint's answer: its status, headers (over the inbox's, but for the safety ones) and body. A
 * header the API refuses today but a response stored earlier may hold (one node:http cannot send, which
 * would answer 500 to a stored capture, or one now refused) is left out and logged: the sender still gets
 * the answer and does not retry a capture that was stored.
 */
export function sendCustomResponse(
  reply: FastifyReply,
  response: EndpointResponse,
  o: { body: string; log: Logger; endpointId: string },
): FastifyReply {
  for (const [index, { name, value }] of response.headers.entries()) {
    const problem = headerProblem(name, value);
    if (problem === undefined) void reply.header(name, value);
    else o.log.warn({ endpointId: o.endpointId, index, name, problem }, 'custom response header skipped');
  }
  void reply.headers(SAFETY_HEADERS);
  if (!response.headers.some((h) => h.name.toLowerCase() === 'content-type')) {
    void reply.type('text/plain; charset=utf-8');
  }
  return reply.code(response.status).send(o.body);
}

function headerProblem(name: string, value: string): string | undefined {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  } catch (e: unknown) {
    return (e as NodeJS.ErrnoException).code ?? 'invalid';
  }
  return refusedResponseHeader(name) === undefined ? undefined : 'refused';
}
