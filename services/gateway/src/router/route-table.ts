import { compileRoutePath } from '@portcullis/config';
import type { GatewayRoute, RouteMatch } from './route-types.js';

interface Compiled {
  route: GatewayRoute;
  regex: RegExp;
  params: string[];
}

interface MethodRoutes {
  static: Map<string, GatewayRoute>;
  variable: Compiled[];
}

export type Lookup =
  | { kind: 'match'; match: RouteMatch }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/**
 * An immutable dispatch table with the original router's order: static routes of the method, then its
 * variable routes in registration order, then (HEAD only) the same for GET, then `*` routes; a path that
 * only other methods serve is "method not allowed" with their list. Built once per route update and
 * swapped whole, so a request finishes on the table it started with.
 */
export class RouteTable {
  private readonly byMethod = new Map<string, MethodRoutes>();

  constructor(readonly routes: readonly GatewayRoute[]) {
    for (const route of routes) {
      const compiled = compileRoutePath(route.path);
      if ('problems' in compiled) throw new Error(`${route.id}: ${compiled.problems.join('; ')}`);
      const m: MethodRoutes = this.byMethod.get(route.method) ?? { static: new Map(), variable: [] };
      this.byMethod.set(route.method, m);
      if (compiled.isStatic) {
        if (!m.static.has(route.path)) m.static.set(route.path, route);
      } else {
        m.variable.push({ route, regex: compiled.regex, params: compiled.params });
      }
    }
  }

  /** `path` is relative to the base path, with no leading or trailing slash. */
  lookup(method: string, path: string): Lookup {
    const found =
      this.find(method, path) ??
      (method === 'HEAD' ? this.find('GET', path) : undefined) ??
      this.find('*', path);
    if (found) return { kind: 'match', match: found };
    const allow = [...this.byMethod.keys()].filter((m) => m !== '*' && this.find(m, path));
    if (allow.length === 0) return { kind: 'not-found' };
    if (allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
    return { kind: 'method-not-allowed', allow: allow.sort() };
  }

  private find(method: string, path: string): RouteMatch | undefined {
    const m = this.byMethod.get(method);
    if (!m) return undefined;
    const route = m.static.get(path);
    if (route) return { route, params: {} };
    for (const c of m.variable) {
      const groups = c.regex.exec(path);
      if (!groups) continue;
      const params: Record<string, string> = {};
      c.params.forEach((name, i) => {
        const value = groups[i + 1];
        if (value !== undefined) params[name] = value;
      });
      return { route: c.route, params };
    }
    return undefined;
  }
}
