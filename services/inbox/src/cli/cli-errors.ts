import { PortcullisError } from '@portcullis/kit';

// The CLI's closed set of failures. Each names what to fix and carries the process exit code; none
// carries a token or a body.

export abstract class CliError extends PortcullisError {
  readonly exitCode: number = 1;
}

/** Bad arguments or options: exit 2, like most Unix tools. */
export class UsageError extends CliError {
  readonly code = 'USAGE';
  override readonly exitCode = 2;
}

/** The inbox answered 404: unknown endpoint or request. */
export class NotFoundError extends CliError {
  readonly code = 'NOT_FOUND';
}

/** No token, or the inbox refused it (401: wrong token, or an endpoint it does not know). */
export class AuthError extends CliError {
  readonly code = 'UNAUTHENTICATED';
}

/** The inbox or the target could not be reached, or answered something unexpected. */
export class UnreachableError extends CliError {
  readonly code = 'UNAVAILABLE';
}

/** The endpoint was deleted while streaming. */
export class EndpointGoneError extends CliError {
  readonly code = 'ENDPOINT_DELETED';
}
