import { aggregateText, errorBody } from './field-errors.js';
import type { FieldError, JsonObject, ResourceDef } from './types.js';

/**
 * The closed set of failures the server answers with, each rendered as a Kubernetes `Status`
 * exactly as `k8s.io/apimachinery/pkg/api/errors` builds it.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'Unknown';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message: string; field?: string }[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): JsonObject {
    const status: JsonObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
    };
    if (this.details) status['details'] = this.details;
    status['code'] = this.code;
    return status;
  }
}

/** `ratelimitconfigs.portcullis.dev`, or just `secrets` for the core group. */
export function qualifiedResource(def: Pick<ResourceDef, 'plural' | 'group'>): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

function qualifiedKind(def: Pick<ResourceDef, 'kind' | 'group'>): string {
  return def.group ? `${def.kind}.${def.group}` : def.kind;
}

function resourceDetails(def: Pick<ResourceDef, 'plural' | 'group'>, name: string): StatusDetails {
  return def.group ? { name, group: def.group, kind: def.plural } : { name, kind: def.plural };
}

export function notFound(def: Pick<ResourceDef, 'plural' | 'group'>, name: string): ApiError {
  return new ApiError(
    404,
    'NotFound',
    `${qualifiedResource(def)} "${name}" not found`,
    resourceDetails(def, name),
  );
}

export function alreadyExists(def: Pick<ResourceDef, 'plural' | 'group'>, name: string): ApiError {
  const message = `${qualifiedResource(def)} "${name}" already exists`;
  return new ApiError(409, 'AlreadyExists', message, resourceDetails(def, name));
}

export function conflict(def: Pick<ResourceDef, 'plural' | 'group'>, name: string, why: string): ApiError {
  const message = `Operation cannot be fulfilled on ${qualifiedResource(def)} "${name}": ${why}`;
  return new ApiError(409, 'Conflict', message, resourceDetails(def, name));
}

export const MODIFIED_CONFLICT =
  'the object has been modified; please apply your changes to the latest version and try again';

export function invalid(
  def: Pick<ResourceDef, 'kind' | 'group'>,
  name: string,
  errors: FieldError[],
): ApiError {
  const message = `${qualifiedKind(def)} "${name}" is invalid: ${aggregateText(errors)}`;
  const causes = errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
  const details: StatusDetails = def.group
    ? { name, group: def.group, kind: def.kind, causes }
    : { name, kind: def.kind, causes };
  return new ApiError(422, 'Invalid', message, details);
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** The 400 a decode failure gets: `Lease in version "v1" cannot be handled as a Lease: …`. */
export function cannotDecode(def: Pick<ResourceDef, 'kind' | 'version'>, why: string): ApiError {
  return badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`);
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  const message = `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`;
  return new ApiError(415, 'UnsupportedMediaType', message);
}

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource`,
    {
      causes: [{ message: method }],
    },
  );
}

export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** The status an injected fault answers with; the reason follows the code as client-go maps it. */
export function injectedFault(code: number, message: string): ApiError {
  const reasons: Record<number, StatusReason> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    409: 'Conflict',
    410: 'Expired',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  const details: StatusDetails | undefined = code === 429 ? { retryAfterSeconds: 1 } : undefined;
  return new ApiError(code, reasons[code] ?? 'Unknown', message, details);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}
