import { NotFoundError } from '@portcullis/kit';
import type { HandlerContext, RequestData } from './types.js';

/** The shipped example handlers, as the original module's template had them. */
export class Example {
  /** `GET /test` (auth): proves the credentials work and says who called. */
  static test(_data: RequestData, ctx: HandlerContext): unknown {
    return {
      message: 'test successful',
      ...(ctx.account ? { user: { id: ctx.account.id, username: ctx.account.username } } : {}),
    };
  }

  /** `GET /ping` (open): a string answer becomes `{"message": "pong"}`. */
  static ping(): unknown {
    return 'pong';
  }

  /** `POST /echo/{id}` (open): the merged data the handler receives, for clients to see the precedence. */
  static echo(data: RequestData): unknown {
    return data;
  }

  /** `GET /users` (auth): the platform accounts, without secrets. */
  static async getAllUsers(_data: RequestData, ctx: HandlerContext): Promise<unknown> {
    const { accounts } = await ctx.accounts.list({ limit: 100 });
    return { users: accounts.map((a) => ({ id: a.id, name: a.username })) };
  }

  /** `GET /users/{id}` (auth): one account, or 404 `{"error":"user not found"}`. */
  static async getUser(data: RequestData, ctx: HandlerContext): Promise<unknown> {
    const account = typeof data.id === 'string' ? await ctx.accounts.getById(data.id) : undefined;
    if (!account) throw new NotFoundError('user not found');
    return { id: account.id, name: account.username };
  }
}
