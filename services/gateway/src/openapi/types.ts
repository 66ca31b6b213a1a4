import type { HandlerClasses } from '../handlers/types.js';
import type { AuthMode, OpenApiAccess } from '../settings.js';

/** What the document depends on besides the routes: fixed for the life of the process. */
export interface DocumentContext {
  basePath: string;
  mode: AuthMode;
  cookieName: string;
  /** Accounts and sessions in Redis, which can fail (503); the memory store cannot. */
  accountsInRedis: boolean;
  /** jwt mode takes identity providers' tokens, whose keys may not be fetched yet (503). */
  identityProviders: boolean;
  /** A ratelimit service is asked (route limits apply); false for `GATEWAY_RATELIMIT_URL=none`. */
  rateLimitService: boolean;
  failureMode: 'allow' | 'deny';
  handlers: HandlerClasses;
  access: OpenApiAccess;
  /** `GATEWAY_API_KEY_HEADER`: an application's key is taken in every mode. */
  apiKeyHeader: string;
  /** jwt mode's refresh tokens (`GATEWAY_REFRESH_TOKENS`); absent: off. */
  refresh?: { mode: 'body' | 'cookie' };
  /** `GATEWAY_ADMIN_TOKEN` is set: the admin API serves, and a reader presenting the token sees it. */
  adminApi: boolean;
}

/** A JSON Schema or OpenAPI object, as the document holds it. */
export type JsonObject = Record<string, unknown>;

export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type OpenApiMethod = (typeof OPENAPI_METHODS)[number];

export interface Operation extends JsonObject {
  operationId: string;
  responses: Record<string, JsonObject>;
}
/** `servers`: only the admin API's, which lies beside the base path. */
export type PathItem = Partial<Record<OpenApiMethod, Operation>> & { servers?: JsonObject[] };

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  paths: Record<string, PathItem>;
  components: JsonObject;
}
