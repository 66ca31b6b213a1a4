import { Example } from './example.js';
import type { HandlerMethod } from './types.js';

/** Handler classes by name: the routes module refers to the classes, ApiRoutes name them `Class.method`. */
export type HandlerClasses = Readonly<Record<string, object>>;

/** Every handler class the gateway ships. Add a class here to make it routable. */
export const HANDLER_CLASSES: HandlerClasses = { Example };

/** The static method `Class.method` of `classes`, or undefined when there is none. */
export function resolveHandler(classes: HandlerClasses, name: string): HandlerMethod | undefined {
  const [className, methodName] = name.split('.');
  const cls = className === undefined ? undefined : classes[className];
  const method = cls && methodName ? (cls as Record<string, unknown>)[methodName] : undefined;
  return typeof method === 'function' ? (method as HandlerMethod) : undefined;
}
