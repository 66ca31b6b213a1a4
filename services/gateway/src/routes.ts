import { Example } from './handlers/example.js';
import type { HandlerClasses } from './handlers/types.js';
import type { RoutesDefinition } from './router/routes-module.js';

/**
 * Every handler class the gateway ships, by the name an ApiRoute gives it (`handler: Example.ping`). A new
 * handler's class (in `handlers/`) is listed here and its routes below, nowhere else; a route whose class is
 * missing here stops start-up.
 */
export const HANDLER_CLASSES: HandlerClasses = { Example };

/**
 * The routes definition: entries `[method, path, HandlerClass, 'method', options]` and groups whose key
 * becomes the first path segment after the base path. `auth` defaults to true. ApiRoute resources add
 * routes at run time; these are the ones compiled into the gateway.
 */
export const routes: RoutesDefinition = [
  ['GET', 'test', Example, 'test'],
  ['GET', 'ping', Example, 'ping', { auth: false }],
  ['POST', 'echo/{id}', Example, 'echo', { auth: false }],
  ['GET', 'users', Example, 'getAllUsers'],
  ['GET', 'users/{id}', Example, 'getUser', { requiredParams: ['id|name'] }],
  {
    v1: [['GET', 'hello', Example, 'test']],
    v2: [['GET', 'hello', Example, 'getAllUsers']],
  },
];
