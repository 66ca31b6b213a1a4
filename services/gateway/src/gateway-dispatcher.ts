import type { AccountStore } from '@portcullis/accounts';
import type { Logger } from '@portcullis/kit';
import type { RateLimitClient } from '@portcullis/ratelimit-client';
import type { Dispatcher as UndiciDispatcher } from 'undici';
import type { AdminToken } from './admin-token.js';
import type { AppStore } from './apps/app-types.js';
import type { Authenticator } from './auth/authenticator.js';
import { Dispatcher } from './dispatch.js';
import type { HandlerClasses } from './handlers/types.js';
import { documentContext } from './openapi/openapi-document.js';
import { createOpenApiRoute } from './openapi/openapi-route.js';
import { buildRouteTable } from './router/build-table.js';
import type { GatewayRoute } from './router/route-types.js';
import type { Settings } from './settings.js';

export interface GatewayDispatcherDeps {
  auth: Authenticator;
  accounts: AccountStore;
  apps: AppStore;
  ratelimit: RateLimitClient;
  upstreams: UndiciDispatcher;
  handlers: HandlerClasses;
  adminToken: AdminToken;
  /** The routes module's routes: the table until the first ApiRoutes arrive. */
  code: readonly GatewayRoute[];
  log: Logger;
}

/** The dispatcher of the base path, with session mode's CSRF rule and the OpenAPI route as settings ask. */
export function createGatewayDispatcher(
  settings: Readonly<Settings>,
  deps: GatewayDispatcherDeps,
): Dispatcher {
  const { auth, handlers } = deps;
  return new Dispatcher(
    {
      settings,
      auth,
      accounts: deps.accounts,
      apps: deps.apps,
      ratelimit: deps.ratelimit,
      upstreams: deps.upstreams,
      handlers,
      log: deps.log,
      csrf:
        settings.auth === 'session'
          ? { cookieName: settings.session.cookieName, allowedOrigins: settings.corsOrigins }
          : undefined,
      openapi:
        settings.openapi === 'off'
          ? undefined
          : createOpenApiRoute({
              ctx: documentContext(settings, handlers),
              auth,
              adminToken: deps.adminToken,
            }),
    },
    buildRouteTable(deps.code, []),
  );
}
