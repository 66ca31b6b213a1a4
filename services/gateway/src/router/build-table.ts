import { parseParameterSpecs } from '../sanitize/index.js';
import { RouteTable } from './route-table.js';
import type { GatewayRoute } from './route-types.js';

/**
 * The table the gateway serves: the routes module's routes, then the ApiRoutes' (their order decides
 * between two routes of one method and path: the first wins). @throws ParameterSpecError for a route's
 * required parameter specs that cannot be used, Error for a path that does not compile.
 */
export function buildRouteTable(code: readonly GatewayRoute[], dynamic: readonly GatewayRoute[]): RouteTable {
  const all = [...code, ...dynamic];
  for (const route of all) parseParameterSpecs(route.requiredParams);
  return new RouteTable(all);
}
