import type { UnauthenticatedError } from '@portcullis/kit';
import type { Caller } from '../auth/authenticator.js';
import { ForbiddenError } from '../errors.js';
import type { AppStore } from './app-types.js';

/**
 * A route with `roles` admits a caller holding any one of them: an application's roles come with its key,
 * a user's are read from the store (only on such routes, so other routes cost no lookup).
 * @throws `missing()` without a caller; ForbiddenError (403 FORBIDDEN) without the role.
 */
export async function checkRouteRoles(
  roles: readonly string[],
  caller: Caller | undefined,
  o: { store: AppStore; missing: () => UnauthenticatedError },
): Promise<void> {
  if (roles.length === 0) return;
  if (!caller) throw o.missing();
  const held = caller.roles ?? (await o.store.userRoles(caller.account.id));
  if (roles.some((r) => held.includes(r))) return;
  throw new ForbiddenError(
    `${caller.via === 'apikey' ? 'application' : 'user'} ${caller.account.username} lacks the role this route needs (one of: ${roles.join(', ')})`,
  );
}
