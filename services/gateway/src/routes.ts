import { Example } from './handlers/example.js';
import type { RoutesDefinition } from './router/routes-module.js';

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
