import type { FastifyReply } from 'fastify';
import { ConfigError, parseEndpointResponse, RESPONSE_LIMITS } from '@portcullis/config';
import { type HttpApp, InvalidArgumentError, NotFoundError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { EndpointManagedError } from '../errors.js';
import type { EndpointRecord, Retention } from '../store/types.js';
import type { Authorize } from '../accounts/access.js';

type Params = { Params: { id: string } };

/** A response's JSON: 64 KiB of body, escaped at worst six bytes a character, and its headers. */
const RESPONSE_BODY_LIMIT_BYTES = 6 * RESPONSE_LIMITS.maxBodyBytes + 64 * 1024;

/**
 * An anonymous or account endpoint's settings, each a sub-resource of `/api/endpoints/:id`: `response` (what
 * its receive URL answers) and `retention` (within the `INBOX_RETENTION_*` ceilings). A managed endpoint's
 * come from its InboxEndpoint resource: 409.
 */
export function registerEndpointSettingsRoutes(app: HttpApp, ctx: InboxContext, authorize: Authorize): void {
  const { store, settings } = ctx;
  const changeable = async (request: Parameters<Authorize>[0], id: string): Promise<EndpointRecord> => {
    const endpoint = await authorize(request, id);
    if (endpoint.kind === 'managed') throw new EndpointManagedError(endpoint.resource);
    return endpoint;
  };

  app.put<Params>('/api/endpoints/:id/response', { bodyLimit: RESPONSE_BODY_LIMIT_BYTES }, (request) =>
    withSpan('portcullis-inbox', 'inbox set response', async () => {
      const endpoint = await changeable(request, request.params.id);
      const response = readResponse(request.body);
      if (!(await store.setEndpointResponse(endpoint.id, response)))
        throw new NotFoundError('no such endpoint');
      return { response };
    }),
  );

  app.delete<Params>('/api/endpoints/:id/response', (request, reply: FastifyReply) =>
    withSpan('portcullis-inbox', 'inbox reset response', async () => {
      const endpoint = await changeable(request, request.params.id);
      if (!(await store.setEndpointResponse(endpoint.id, undefined)))
        throw new NotFoundError('no such endpoint');
      return reply.code(204).send();
    }),
  );

  app.put<Params>('/api/endpoints/:id/retention', { bodyLimit: 16 * 1024 }, (request) =>
    withSpan('portcullis-inbox', 'inbox set retention', async () => {
      const endpoint = await changeable(request, request.params.id);
      const retention = readRetention(request.body, settings.retention);
      if (!(await store.setEndpointRetention(endpoint.id, retention))) {
        throw new NotFoundError('no such endpoint');
      }
      return toRetentionJson(retention);
    }),
  );
}

/** `{maxRequests, maxAgeSeconds}` as the API shows a retention. */
export function toRetentionJson(r: Retention): { maxRequests: number; maxAgeSeconds: number } {
  return { maxRequests: r.maxRequests, maxAgeSeconds: Math.round(r.maxAgeMs / 1000) };
}

function readResponse(body: unknown): ReturnType<typeof parseEndpointResponse> {
  try {
    return parseEndpointResponse('response', body);
  } catch (err: unknown) {
    if (err instanceof ConfigError) throw new InvalidArgumentError(err.problems.join('; '), { cause: err });
    throw err;
  }
}

/**
 * `{maxRequests?, maxAgeSeconds?}`, each an integer from 1 to its ceiling (`INBOX_RETENTION_MAX_REQUESTS`,
 * `INBOX_RETENTION_MAX_AGE`); a missing one is the ceiling. Every problem is named.
 */
export function readRetention(body: unknown, ceiling: Retention): Retention {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidArgumentError('retention: expected a JSON object {"maxRequests", "maxAgeSeconds"}');
  }
  const { maxRequests, maxAgeSeconds, ...rest } = body as Record<string, unknown>;
  const problems = Object.keys(rest).map((k) => `retention: ${k}: unknown field`);
  const maxAgeCeilingSeconds = Math.max(1, Math.floor(ceiling.maxAgeMs / 1000));
  const within = (name: string, v: unknown, max: number): boolean => {
    if (v === undefined) return false;
    if (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= max) return true;
    problems.push(`retention: ${name}: expected an integer from 1 to ${max}, the inbox's ceiling`);
    return false;
  };
  const requests = within('maxRequests', maxRequests, ceiling.maxRequests)
    ? (maxRequests as number)
    : undefined;
  const ageSeconds = within('maxAgeSeconds', maxAgeSeconds, maxAgeCeilingSeconds)
    ? (maxAgeSeconds as number)
    : undefined;
  if (problems.length > 0) throw new InvalidArgumentError(problems.join('; '));
  return {
    maxRequests: requests ?? ceiling.maxRequests,
    maxAgeMs: ageSeconds === undefined ? ceiling.maxAgeMs : Math.min(ageSeconds * 1000, ceiling.maxAgeMs),
  };
}
