import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account, AccountsBackend } from '@portcullis/accounts';
import { type HttpApp, InvalidArgumentError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { authError } from '../errors.js';
import type { InboxRateLimiter } from '../rate-limit.js';
import type { WebSessions } from './web-sessions.js';

/** A user name and a password at most; the CSRF rule checks these even without a cookie (login CSRF). */
const SIGN_IN_ROUTE = { bodyLimit: 4 * 1024, config: { csrf: 'sets-cookie' } } as const;

export interface AccountGuards {
  backend: AccountsBackend;
  sessions: WebSessions;
  limiter: InboxRateLimiter;
}

/**
 * Sign-up, sign-in and sign-out for the web inspector: `POST /api/accounts`, `POST|GET|DELETE /api/session`
 * (see the README). Signing up signs in; signing in ends the session the browser had (no fixation).
 */
export function registerAccountRoutes(app: HttpApp, ctx: InboxContext, g: AccountGuards): void {
  const { cookies } = g.sessions;
  const signIn = async (request: FastifyRequest, reply: FastifyReply, account: Account): Promise<void> => {
    const { setCookie } = await cookies.start(account.id, {
      https: request.protocol === 'https',
      cookie: request.headers.cookie,
    });
    void reply.header('set-cookie', setCookie).header('cache-control', 'no-store');
  };

  app.post('/api/accounts', SIGN_IN_ROUTE, (request, reply) =>
    withSpan('portcullis-inbox', 'inbox sign up', async () => {
      const { username, password } = readCredentials(request.body);
      await g.limiter.enforce({ action: 'sign_up', remoteAddress: request.ip }, reply);
      const account = await g.backend.accounts.createUser({ username, password });
      await signIn(request, reply, account);
      ctx.log.info({ accountId: account.id }, 'account created');
      return reply.code(201).send({ account: toAccountJson(account) });
    }),
  );

  app.post('/api/session', SIGN_IN_ROUTE, (request, reply) =>
    withSpan('portcullis-inbox', 'inbox sign in', async () => {
      const { username, password } = readCredentials(request.body);
      await g.limiter.enforce({ action: 'sign_in', remoteAddress: request.ip, username }, reply);
      const account = await g.backend.accounts.verifyCredentials(username, password);
      if (!account) {
        ctx.log.info({ remoteAddress: request.ip }, 'sign-in refused');
        throw authError('login_failed');
      }
      await signIn(request, reply, account);
      return { account: toAccountJson(account) };
    }),
  );

  app.get('/api/session', async (request, reply) => {
    const signedIn = await g.sessions.signedIn(request);
    void reply.header('cache-control', 'no-store');
    return { account: signedIn ? toAccountJson(signedIn.account) : null };
  });

  app.delete('/api/session', async (request, reply) => {
    const signedIn = await g.sessions.signedIn(request);
    const setCookie = await cookies.end(signedIn?.sessionId, { https: request.protocol === 'https' });
    return reply.code(204).header('set-cookie', setCookie).send();
  });
}

export function toAccountJson(a: Account): { id: string; username: string; createdAt: string } {
  return { id: a.id, username: a.username, createdAt: a.createdAt };
}

function readCredentials(body: unknown): { username: string; password: string } {
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof o.username !== 'string' || typeof o.password !== 'string') {
    throw new InvalidArgumentError('expected a JSON body {"username": "…", "password": "…"}');
  }
  return { username: o.username, password: o.password };
}
