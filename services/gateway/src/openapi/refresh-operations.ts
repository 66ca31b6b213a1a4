import { REFRESH_COOKIE } from '../auth/refresh-tokens.js';
import { RefreshTokenInvalidError, RefreshTokenReusedError } from '../errors.js';
import { errorResponses, signInErrors } from './error-responses.js';
import type { DocumentContext, JsonObject, PathItem } from './types.js';

const FORMS = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];
const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });
const str = { type: 'string' };

/** `POST /auth` and `DELETE /auth` with refresh tokens on: the sign-in or the refresh grant, and the family. */
export function withRefreshTokens(item: PathItem, ctx: DocumentContext): PathItem {
  const refresh = ctx.refresh;
  if (!refresh || !item.post || !item.delete) return item;
  const cookie = refresh.mode === 'cookie';
  const credentials = {
    type: 'object',
    required: ['username', 'password'],
    properties: { username: str, password: { type: 'string', format: 'password' } },
  };
  const grant = {
    type: 'object',
    required: cookie ? ['grant_type'] : ['grant_type', 'refresh_token'],
    properties: {
      grant_type: { const: 'refresh_token' },
      refresh_token: {
        type: 'string',
        description: cookie
          ? `Without it, the \`${REFRESH_COOKIE}\` cookie is read.`
          : 'From the sign-in or the last refresh.',
      },
    },
  };
  const issued = {
    type: 'object',
    required: ['jwt', 'token_type', 'expires_in', 'refresh_expires_in', ...(cookie ? [] : ['refresh_token'])],
    properties: {
      jwt: str,
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer', description: "The access token's lifetime in seconds." },
      refresh_expires_in: { type: 'integer', description: "The refresh token's lifetime in seconds." },
      ...(cookie ? {} : { refresh_token: str }),
    },
  };
  const setCookie = {
    'Set-Cookie': {
      description: `\`${REFRESH_COOKIE}\`: HttpOnly, SameSite=Strict, Path=/${ctx.basePath}/auth.`,
      schema: str,
    },
  };
  return {
    ...item,
    post: {
      ...item.post,
      description: `${String(item.post.description)} With \`grant_type=refresh_token\` a refresh token is exchanged for a new access token and a new refresh token (OAuth 2 refresh grant); the presented one is spent, and presenting a spent one revokes every token of its sign-in (\`REFRESH_TOKEN_REUSED\`).`,
      requestBody: {
        required: true,
        content: Object.fromEntries(FORMS.map((t) => [t, { schema: { oneOf: [credentials, grant] } }])),
      },
      responses: {
        '200': {
          description: 'Signed in or refreshed: a short-lived Bearer token and a refresh token.',
          ...(cookie ? { headers: setCookie } : {}),
          content: json(issued),
        },
        ...errorResponses([...signInErrors(ctx), RefreshTokenInvalidError, RefreshTokenReusedError]),
      },
    },
    delete: {
      ...item.delete,
      description: `${String(item.delete.description)} A token issued with a refresh token ends its whole sign-in: the refresh token and every access token of it${cookie ? '; the refresh cookie is removed' : ''}.`,
      ...(cookie
        ? {
            responses: {
              ...item.delete.responses,
              '200': { ...item.delete.responses['200'], headers: setCookie },
            },
          }
        : {}),
    },
  };
}
