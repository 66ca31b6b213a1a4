import type { HandlerClasses, HandlerMethod } from './types.js';

/** The static method `Class.method` of `classes`, or undefined when there is none. */
export function resolveHandler(classes: HandlerClasses, name: string): HandlerMethod | undefined {
  const [className, methodName] = name.split('.');
  const cls = className === undefined ? undefined : classes[className];
  const method = cls && methodName ? (cls as Record<string, unknown>)[methodName] : undefined;
  return typeof method === 'function' ? (method as HandlerMethod) : undefined;
}
