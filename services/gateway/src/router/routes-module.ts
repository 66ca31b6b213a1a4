import { HTTP_METHODS, type HttpMethod } from '@portcullis/config';
import type { HandlerClasses } from '../handlers/types.js';
import type { GatewayRoute } from './route-types.js';

export interface RouteOptions {
  auth?: boolean;
  /** `name` or `name|sanitizer`, checked before the handler runs. */
  requiredParams?: string[];
  /** The caller needs one of them; implies `auth`. */
  roles?: string[];
}

export type RouteEntry = [
  method: HttpMethod,
  path: string,
  handlerClass: object,
  handlerMethod: string,
  options?: RouteOptions,
];

/** Entries and groups; a group's key (`v1`, `v2/admin`) prefixes the paths of its entries. */
export type RoutesDefinition = ReadonlyArray<RouteEntry | Readonly<Record<string, readonly RouteEntry[]>>>;

/** The routes of a routes module, checked: every handler must be a registered class's static method. */
export function routesFromModule(definition: RoutesDefinition, classes: HandlerClasses): GatewayRoute[] {
  const out: GatewayRoute[] = [];
  const add = (entry: RouteEntry, prefix: string): void => {
    const [method, path, cls, methodName, options = {}] = entry;
    const className = Object.entries(classes).find(([, c]) => c === cls)?.[0];
    if (!className) throw new Error(`routes: ${method} ${path}: the handler class is not registered`);
    if (typeof (cls as Record<string, unknown>)[methodName] !== 'function') {
      throw new Error(`routes: ${method} ${path}: ${className}.${methodName} is not a static method`);
    }
    if (!HTTP_METHODS.includes(method)) throw new Error(`routes: unknown method ${method}`);
    if ((options.roles ?? []).length > 0 && options.auth === false)
      throw new Error(`routes: ${method} ${path}: roles need auth`);
    const full = [prefix, path.replace(/^\/+|(?<!\/)\/+$/g, '')].filter((p) => p !== '').join('/');
    out.push({
      id: `code:${method} ${full}`,
      prefix,
      method,
      path: full,
      auth: options.auth ?? true,
      requiredParams: options.requiredParams ?? [],
      roles: options.roles ?? [],
      target: { kind: 'handler', handler: `${className}.${methodName}` },
      rateLimit: undefined,
    });
  };
  for (const item of definition) {
    if (Array.isArray(item)) add(item, '');
    else
      for (const [prefix, entries] of Object.entries(item))
        for (const e of entries) add(e, prefix.replace(/^\/+|(?<!\/)\/+$/g, ''));
  }
  return out;
}
