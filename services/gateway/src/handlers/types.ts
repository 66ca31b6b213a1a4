import type { Account, AccountStore } from '@portcullis/accounts';
import type { Logger } from '@portcullis/kit';

/** Handler classes by name: the routes module refers to the classes, ApiRoutes name them `Class.method`. */
export type HandlerClasses = Readonly<Record<string, object>>;

/** The merged request parameters a handler receives: query < body < path parameters < `userId`. */
export type RequestData = Record<string, unknown>;

/** What a handler may use besides its data: the caller and the platform's services. */
export interface HandlerContext {
  /**
   * The authenticated caller, or undefined on an open route without credentials: a platform account, or
   * the user an identity provider's token names (`id` its `sub`).
   */
  account: Pick<Account, 'id' | 'username'> | undefined;
  accounts: AccountStore;
  log: Logger;
}

/**
 * A handler method: its return value is the response (object or array → JSON, string →
 * `{"message": …}`, nothing → `null`); it may throw an error of the gateway's registry (kit's `NotFoundError`, `InvalidArgumentError`,
 * ..., errors.ts' `ForbiddenError`, `ConflictError`) to answer with its status.
 */
export type HandlerMethod = (data: RequestData, ctx: HandlerContext) => unknown;
