import type { Logger, Part, Readiness } from '@portcullis/kit';
import { createXdsSubscription } from '@portcullis/xds';
import type { Settings } from '../settings.js';
import { API_ROUTE_TYPE, routesFromApiRoutes } from './api-routes.js';
import { buildRouteTable } from './build-table.js';
import type { RouteTable } from './route-table.js';
import type { GatewayRoute } from './route-types.js';

export interface RouteSubscription {
  /** Subscribes to ApiRoutes (`GATEWAY_XDS_SERVER_URL`); nothing without a server. */
  subscribe: Part;
  /** Waits for the first ApiRoutes, then `/readyz` stops naming `xds`. */
  firstRoutes: Part;
}

/**
 * The route table's updates: each xDS update's ApiRoutes, after the routes module's `code` routes, make a
 * new table handed to `apply` whole.
 */
export function createRouteSubscription(
  settings: Readonly<Settings>,
  deps: {
    code: readonly GatewayRoute[];
    apply: (table: RouteTable) => void;
    readiness: Readiness;
    log: Logger;
  },
): RouteSubscription {
  const { readiness } = deps;
  const xds = settings.xds.serverUrl
    ? createXdsSubscription({
        ...settings.xds,
        log: deps.log,
        typeUrl: API_ROUTE_TYPE,
        decode: (resources) => buildRouteTable(deps.code, routesFromApiRoutes(resources)),
        apply: deps.apply,
        describe: (table) => ({ routes: table.routes.length }),
      })
    : undefined;
  if (xds) readiness.health.register('xds', false);
  return {
    subscribe: { name: 'routes', start: () => xds?.start(), close: () => xds?.close() },
    firstRoutes: {
      // the port is open meanwhile: /healthz answers, /readyz names xds
      name: 'first routes',
      start: async () => {
        await xds?.firstUpdate();
        readiness.health.set('xds', true);
      },
      close: () => undefined,
    },
  };
}
