import type { HttpMethod, RouteRateLimit, RouteTarget } from '@portcullis/config';

/** One servable route, from the routes module or an ApiRoute resource. */
export interface GatewayRoute {
  /** Where it came from, for logs and rate-limit descriptors: `code:v1/users` or `ns/apiroute/name`. */
  id: string;
  /** The group or ApiRoute prefix (`v1`), '' for none; `path` starts with it. */
  prefix: string;
  method: HttpMethod;
  /** Relative to the base path, without leading or trailing `/`: `v1/users/{id:\d+}`. */
  path: string;
  auth: boolean;
  requiredParams: readonly string[];
  /** One of them is needed (a user's or an application's role); empty: any caller `auth` admits. */
  roles: readonly string[];
  target: RouteTarget;
  rateLimit: RouteRateLimit | undefined;
}

export interface RouteMatch {
  route: GatewayRoute;
  params: Record<string, string>;
}
