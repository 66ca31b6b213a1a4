import { AccountsBackendError } from '@portcullis/accounts';
import {
  BadRequestError,
  InvalidArgumentError,
  NotFoundError,
  UnauthenticatedError,
  type ErrorClass,
} from '@portcullis/kit';
import { ROLE_NAME } from '@portcullis/config';
import { ADMIN_PATH } from '../apps/admin-routes.js';
import { BODY_ERRORS, errorResponses } from './error-responses.js';
import type { DocumentContext, JsonObject, Operation, PathItem } from './types.js';

const json = (schema: JsonObject): JsonObject => ({ 'application/json': { schema } });
const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const security = [{ adminToken: [] }];

export const ADMIN_TOKEN_SCHEME: JsonObject = {
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: '`GATEWAY_ADMIN_TOKEN`; presenting it to this document lists the admin API.',
  },
};

const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
};
const ROLES = {
  type: 'array',
  maxItems: 32,
  items: { type: 'string', pattern: ROLE_NAME.source },
  description: 'Role names; repeats are kept once.',
};
const APPLICATION = {
  type: 'object',
  required: ['id', 'name', 'roles', 'createdAt'],
  properties: { id: str, name: str, roles: { type: 'array', items: str }, createdAt: time },
};
const KEY_LISTING = {
  type: 'object',
  required: ['id', 'appId', 'name', 'createdAt'],
  properties: { id: str, appId: str, name: str, createdAt: time, expiresAt: time, revokedAt: time },
};
const FAMILY = {
  type: 'object',
  required: ['id', 'createdAt', 'lastUsedAt', 'expiresAt', 'userAgent', 'address'],
  properties: {
    id: str,
    createdAt: time,
    lastUsedAt: time,
    expiresAt: time,
    userAgent: str,
    address: str,
  },
};

function pathParam(name: string, description: string): JsonObject {
  return { name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } };
}

/**
 * The admin API (`/admin/...`, beside the base path: each path item names the server root), for a reader of
 * the document who presents the admin token. Every operation needs the `adminToken` scheme.
 */
export function adminPathItems(ctx: DocumentContext): Record<string, PathItem> {
  const backend: ErrorClass[] = [
    UnauthenticatedError,
    ...(ctx.accountsInRedis ? [AccountsBackendError] : []),
  ];
  // a path parameter fastify cannot decode is a 400; one that is empty finds no route
  const withParams = [...backend, BadRequestError, NotFoundError];
  const withBody = [...BODY_ERRORS, InvalidArgumentError];
  const op = (o: {
    id: string;
    summary: string;
    params?: JsonObject[];
    body?: JsonObject;
    ok: [status: string, description: string, schema?: JsonObject];
    errors: ErrorClass[];
  }): Operation => ({
    operationId: o.id,
    summary: o.summary,
    security,
    ...(o.params ? { parameters: o.params } : {}),
    ...(o.body ? { requestBody: { required: true, content: json(o.body) } } : {}),
    responses: {
      [o.ok[0]]: { description: o.ok[1], ...(o.ok[2] ? { content: json(o.ok[2]) } : {}) },
      ...errorResponses(o.errors),
    },
  });
  const app = pathParam('id', 'The application id.');
  const user = pathParam('id', 'The account id (or an identity provider’s `sub`).');
  const items: Record<string, PathItem> = {
    [`${ADMIN_PATH}/apps`]: {
      post: op({
        id: 'adminCreateApp',
        summary: 'Creates an application',
        body: { type: 'object', required: ['name'], properties: { name: NAME, roles: ROLES } },
        ok: ['201', 'The application.', APPLICATION],
        errors: [...backend, ...withBody],
      }),
      get: op({
        id: 'adminListApps',
        summary: 'The applications, oldest first',
        ok: [
          '200',
          'Every application.',
          {
            type: 'object',
            required: ['apps'],
            properties: { apps: { type: 'array', items: APPLICATION } },
          },
        ],
        errors: backend,
      }),
    },
    [`${ADMIN_PATH}/apps/{id}/keys`]: {
      post: op({
        id: 'adminCreateKey',
        summary: 'Creates a key of an application: the only answer that shows it',
        params: [app],
        body: {
          type: 'object',
          required: ['name'],
          properties: { name: NAME, expiresAt: { ...time, description: 'In the future; absent: never.' } },
        },
        ok: [
          '201',
          'The key and its listing.',
          {
            ...KEY_LISTING,
            required: ['key', ...KEY_LISTING.required],
            properties: { key: str, ...KEY_LISTING.properties },
          },
        ],
        errors: [...withParams, ...withBody],
      }),
      get: op({
        id: 'adminListKeys',
        summary: "An application's keys, revoked ones included (never a key)",
        params: [app],
        ok: [
          '200',
          'The listings.',
          { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: KEY_LISTING } } },
        ],
        errors: withParams,
      }),
    },
    [`${ADMIN_PATH}/apps/{id}/keys/{keyId}`]: {
      delete: op({
        id: 'adminRevokeKey',
        summary: 'Revokes a key at once',
        params: [app, pathParam('keyId', 'The key id.')],
        ok: ['204', 'Revoked (revoking again keeps the first time).'],
        errors: withParams,
      }),
    },
    [`${ADMIN_PATH}/users/{id}/roles`]: {
      put: op({
        id: 'adminSetUserRoles',
        summary: "Sets a user's roles",
        params: [user],
        body: { type: 'object', required: ['roles'], properties: { roles: ROLES } },
        ok: [
          '200',
          'The roles now held.',
          {
            type: 'object',
            required: ['id', 'roles'],
            properties: { id: str, roles: { type: 'array', items: str } },
          },
        ],
        errors: [...withParams, ...withBody],
      }),
    },
  };
  if (ctx.refresh) {
    items[`${ADMIN_PATH}/users/{id}/sessions`] = {
      get: op({
        id: 'adminListUserSessions',
        summary: "A user's sign-ins (refresh-token families), oldest first",
        params: [user],
        ok: [
          '200',
          'The live families.',
          {
            type: 'object',
            required: ['user', 'families'],
            properties: { user: str, families: { type: 'array', items: FAMILY } },
          },
        ],
        errors: withParams,
      }),
      delete: op({
        id: 'adminRevokeUserSessions',
        summary: "Revokes all of a user's sign-ins",
        params: [user],
        ok: [
          '200',
          'Their refresh tokens and access tokens are refused from now on.',
          {
            type: 'object',
            required: ['user', 'revoked'],
            properties: { user: str, revoked: { type: 'integer', minimum: 0 } },
          },
        ],
        errors: withParams,
      }),
    };
    items[`${ADMIN_PATH}/users/{id}/sessions/{family}`] = {
      delete: op({
        id: 'adminRevokeUserSession',
        summary: "Revokes one of a user's sign-ins",
        params: [user, pathParam('family', 'The family id.')],
        ok: ['204', 'Revoked: its refresh token and access tokens are refused from now on.'],
        errors: withParams,
      }),
    };
  }
  return Object.fromEntries(
    Object.entries(items).map(([path, item]) => [path, { servers: [{ url: '/' }], ...item }]),
  );
}
