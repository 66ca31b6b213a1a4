import { defineError, PortcullisError, type ErrorClass } from '@portcullis/kit';

// The CLI's closed set of failures. Each names what to fix and carries the process exit code; none
// carries a token or a body. Their codes are the CLI's own (never an HTTP answer, so status 500), named apart
// from the API's `NOT_FOUND`, `UNAUTHENTICATED` and `UNAVAILABLE`: one class per code.

export abstract class CliError extends PortcullisError {
  readonly exitCode: number = 1;
}

/** Bad arguments or options: exit 2, like most Unix tools. */
export class UsageError extends defineError('USAGE', 500, { base: CliError }) {
  override readonly exitCode = 2;
}

/** The inbox answered 404: unknown endpoint or request. */
export class NotFoundError extends defineError('CLI_NOT_FOUND', 500, { base: CliError }) {}

/** No token, or the inbox refused it (401: wrong token, or an endpoint it does not know). */
export class AuthError extends defineError('CLI_UNAUTHENTICATED', 500, { base: CliError }) {}

/** The inbox or the target could not be reached, or answered something unexpected. */
export class UnreachableError extends defineError('CLI_UNREACHABLE', 500, { base: CliError }) {}

/** The endpoint was deleted while streaming. */
export class EndpointGoneError extends defineError('ENDPOINT_DELETED', 500, { base: CliError }) {}

/** The CLI's registry. */
export const CLI_ERRORS: readonly ErrorClass[] = [
  UsageError,
  NotFoundError,
  AuthError,
  UnreachableError,
  EndpointGoneError,
];
