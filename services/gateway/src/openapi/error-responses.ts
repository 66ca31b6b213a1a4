import { STATUS_CODES } from 'node:http';
import { AccountsBackendError, CsrfError, PasswordChecksBusyError } from '@portcullis/accounts';
import {
  BadRequestError,
  BodyTooDeepError,
  BodyTooLargeError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  type ErrorClass,
} from '@portcullis/kit';
import { RateLimitedError, RateLimitUnavailableError } from '@portcullis/ratelimit-client';
import {
  BadJsonError,
  BadMultipartError,
  BadPathError,
  ConflictError,
  ForbiddenError,
  JwksUnavailableError,
  MissingParametersError,
  ParameterSpecError,
  UnknownHandlerError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
} from '../errors.js';
import type { DocumentContext, JsonObject } from './types.js';

/** `{"error": "<message>", "code": "<CODE>"}`: every error the gateway answers (kit's error mapper). */
export const ERROR_SCHEMA: JsonObject = {
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'What went wrong, for people.' },
    code: { type: 'string', description: 'Stable, for programs: one code, one status.' },
  },
  additionalProperties: false,
};

/** What reading a body can fail with: a handler route reads it, and so does the sign-in. */
export const BODY_ERRORS: readonly ErrorClass[] = [
  BadJsonError,
  BadMultipartError,
  BodyTooDeepError,
  BodyTooLargeError,
];

/** What a handler may throw to answer a status of its own (see the README's Handlers), and its failure. */
const HANDLER_OWN_ERRORS: readonly ErrorClass[] = [
  InvalidArgumentError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  UnavailableError,
  InternalError,
];

/** Whoever may present credentials: a bad or revoked one is a 401 on every route, open ones too. */
export function credentialErrors(ctx: DocumentContext): ErrorClass[] {
  if (ctx.mode === 'none') return [];
  return [
    UnauthenticatedError,
    ...(ctx.accountsInRedis ? [AccountsBackendError] : []),
    ...(ctx.identityProviders ? [JwksUnavailableError] : []),
  ];
}

/** Session mode refuses a cookie write from another site. */
export function csrfErrors(ctx: DocumentContext, isWrite: boolean): ErrorClass[] {
  return ctx.mode === 'session' && isWrite ? [CsrfError] : [];
}

export function signInErrors(ctx: DocumentContext): ErrorClass[] {
  return [
    ...BODY_ERRORS,
    UnauthenticatedError,
    RateLimitedError,
    PasswordChecksBusyError,
    ...(ctx.accountsInRedis ? [AccountsBackendError] : []),
    ...(ctx.rateLimitService && ctx.failureMode === 'deny' ? [RateLimitUnavailableError] : []),
  ];
}

export interface RouteShape {
  kind: 'handler' | 'backend';
  /** The handler exists in this gateway (always true for a backend route). */
  resolvable: boolean;
  hasParams: boolean;
  /** A parameter declares a pattern, so a value outside it finds no route. */
  hasPatterns: boolean;
  rateLimited: boolean;
  /** `roles`: a caller without one is a 403. */
  hasRoles: boolean;
  /** Its required parameters: none, specs that parse, or specs that do not (every request is a 400). */
  requiredParams: 'none' | 'valid' | 'invalid';
  isWrite: boolean;
}

/** Every error a route of this shape can answer, besides the edge's (408, 414, 431) that any request can. */
export function routeErrors(route: RouteShape, ctx: DocumentContext): ErrorClass[] {
  const errors: ErrorClass[] = [
    ...credentialErrors(ctx),
    // an API key is checked in every mode (a bad one is a 401 on any route), so mode none too
    UnauthenticatedError,
    ...csrfErrors(ctx, route.isWrite),
  ];
  if (route.hasRoles) errors.push(ForbiddenError);
  // fastify's router cannot decode some escapes (BAD_REQUEST); the gateway refuses escaped separators
  if (route.hasParams) errors.push(BadRequestError, BadPathError);
  if (route.hasPatterns) errors.push(NotFoundError);
  if (route.rateLimited && ctx.rateLimitService) {
    errors.push(RateLimitedError);
    if (ctx.failureMode === 'deny') errors.push(RateLimitUnavailableError);
  }
  if (route.kind === 'backend') return [...errors, UpstreamUnavailableError, UpstreamTimeoutError];
  if (!route.resolvable) return [...errors, UnknownHandlerError];
  errors.push(...BODY_ERRORS);
  if (route.requiredParams === 'valid') errors.push(MissingParametersError);
  if (route.requiredParams === 'invalid') errors.push(ParameterSpecError);
  return [...errors, ...HANDLER_OWN_ERRORS];
}

const RETRY_AFTER = {
  description: 'Seconds to wait before trying again.',
  schema: { type: 'string', pattern: '^[0-9]+$' },
};

/**
 * The responses of `errors`, one per status: the shared error schema with `code` narrowed to the codes that
 * status stands for here, and the headers the gateway adds (`WWW-Authenticate`, `Retry-After`).
 */
export function errorResponses(errors: readonly ErrorClass[]): Record<string, JsonObject> {
  const byStatus = new Map<number, Set<string>>();
  for (const e of errors) byStatus.set(e.status, (byStatus.get(e.status) ?? new Set()).add(e.code));
  const out: Record<string, JsonObject> = {};
  for (const [status, codeSet] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = [...codeSet].sort();
    const headers: JsonObject = {};
    if (status === UnauthenticatedError.status) {
      headers['WWW-Authenticate'] = {
        description: 'The scheme to authenticate with.',
        schema: { type: 'string' },
      };
    }
    if (
      [RateLimitedError, PasswordChecksBusyError, JwksUnavailableError].some((e) => codes.includes(e.code))
    ) {
      headers['Retry-After'] = RETRY_AFTER;
    }
    out[String(status)] = {
      description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { code: { enum: codes } } }],
          },
        },
      },
    };
  }
  return out;
}
