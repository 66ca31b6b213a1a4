import type { FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError } from '@portcullis/kit';
import { signInDescriptors, type RateLimitClient } from '@portcullis/ratelimit-client';
import { enforceLimits } from '../rate-limit.js';
import { readData } from '../request-data.js';
import { isSecureRequest } from '../secure-request.js';
import type { Settings } from '../settings.js';
import type { Authenticator } from './authenticator.js';

const AUTH_METHODS = ['DELETE', 'OPTIONS', 'POST'];

export interface AuthRouteOptions {
  settings: Readonly<Settings>;
  auth: Authenticator;
  ratelimit: RateLimitClient;
}

/** Serves `/auth` below the base path. */
export type AuthRoute = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * `/auth`: `POST` signs in (body parameters only: a password or refresh token in the query string would
 * land in access logs and browser history), rate limited per address and user
 * name in `GATEWAY_RATELIMIT_AUTH_DOMAIN`; `DELETE` signs out; `OPTIONS` lists the methods; others 405.
 */
export function createAuthRoute(o: AuthRouteOptions): AuthRoute {
  return async (request, reply) => {
    const secure = isSecureRequest(request);
    switch (request.method) {
      case 'OPTIONS':
        return reply.code(204).header('allow', AUTH_METHODS.join(', ')).send();
      case 'POST': {
        const params = await readData(request.raw, o.settings);
        // before the password is checked, so guessing gets 429 whether or not a guess is right
        const username = typeof params.username === 'string' ? params.username : '';
        await enforceLimits(o.ratelimit, reply, {
          domain: o.settings.ratelimit.authDomain,
          descriptors: signInDescriptors(request.ip, username),
        });
        return o.auth.login(params, reply, {
          secure,
          cookie: request.headers.cookie,
          userAgent: request.headers['user-agent'] ?? '',
          address: request.ip,
        });
      }
      case 'DELETE':
        return o.auth.logout(await o.auth.identify(request), reply, secure);
      default:
        throw new MethodNotAllowedError('Method not allowed', AUTH_METHODS);
    }
  };
}
