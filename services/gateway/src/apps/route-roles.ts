import type { UnauthenticatedError } from '@portcullis/kit';
import type { Caller } from '../auth/caller.js';
import { ForbiddenError } from '../errors.js';
import type { AppStore } from './app-types.js';

/**
 * A route with `roles` admits a caller holding any one of them: an application's roles come with its key,
 * a user's are read from the store (only on such routes, so other routes cost no lookup).
 * @returns the first of `roles` the caller holds (a `from: role` rate-limit descriptor's value); undefined
 * when `roles` is empty.
 * @throws `missing()` without a caller; ForbiddenError (403 FORBIDDEN) without the role.
 */
export async function checkRouteRoles(
  roles: readonly string[],
  caller: Caller | undefined,
  o: { store: AppStore; missing: () => UnauthenticatedError },
): Promise<string | undefined> {
  if (roles.length === 0) return undefined;
  if (!caller) throw o.missing();
  const held = caller.roles ?? (await o.store.userRoles(caller.account.id));
  const role = roles.find((r) => held.includes(r));
  if (role !== undefined) return role;
  throw new ForbiddenError(
    `${caller.via === 'apikey' ? 'application' : 'user'} ${caller.account.username} lacks the role this route needs (one of: ${roles.join(', ')})`,
  );
}
