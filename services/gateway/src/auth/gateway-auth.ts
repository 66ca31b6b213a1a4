import { CookieSessions, type AccountsBackend } from '@portcullis/accounts';
import type { Logger } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import { createApiKeyAuth } from '../apps/api-key-auth.js';
import type { AppStore } from '../apps/app-types.js';
import { createMemoryAppStore } from '../apps/memory-app-store.js';
import { createRedisAppStore } from '../apps/redis-app-store.js';
import { createCredentialMetrics } from '../credential-metrics.js';
import { createExpiringCache } from '../expiring-cache.js';
import type { Keys } from '../keys.js';
import type { Settings } from '../settings.js';
import { Authenticator } from './authenticator.js';
import { createIdpVerifier } from './idp-verifier.js';
import { createJwt } from './jwt.js';
import { createMemoryRefreshStore } from './refresh-store.js';
import { createRedisRefreshStore } from './refresh-store-redis.js';
import { RefreshTokens } from './refresh-tokens.js';
import { createJwksFetchCounter, reportTokenCache } from './token-metrics.js';
import { createTokenVerifier, type VerifiedToken } from './token-verifier.js';

export interface GatewayAuth {
  auth: Authenticator;
  /** Applications, API keys and users' roles: in the accounts' Redis, or in memory with them. */
  apps: AppStore;
  /** Refresh tokens, unless `GATEWAY_REFRESH_TOKENS` is off. */
  refresh: RefreshTokens | undefined;
}

export interface GatewayAuthDeps {
  keys: Keys;
  backend: AccountsBackend;
  registry: Registry;
  log: Logger;
  now: () => number;
}

/**
 * Who a request comes from, for every mode: tokens (the gateway's and identity providers', with the
 * verified-token cache), session cookies, API keys and refresh tokens, with their metrics on `registry`.
 */
export function createGatewayAuth(settings: Readonly<Settings>, deps: GatewayAuthDeps): GatewayAuth {
  const { keys, backend, registry, log, now } = deps;
  const jwt = createJwt({ ...settings.jwt, secret: keys.jwtSecret });
  const onJwksFetch = createJwksFetchCounter(registry);
  const tokenCache = createExpiringCache<VerifiedToken>({ maxEntries: settings.tokenCacheSize, now });
  const tokens = createTokenVerifier({
    jwt,
    idp: createIdpVerifier({
      issuers: settings.idp.issuers,
      jwks: {
        timeoutMs: settings.idp.jwksTimeoutMs,
        freshness: { minMs: settings.idp.jwksCacheMinMs, maxMs: settings.idp.jwksCacheMaxMs },
        refetchIntervalMs: settings.idp.jwksRefetchIntervalMs,
      },
      log,
      now,
      onFetch: onJwksFetch,
    }),
    cache: tokenCache,
  });
  reportTokenCache(registry, tokenCache);
  const credentials = createCredentialMetrics(registry);
  const redis = backend.redisPool?.next();
  const apps = redis ? createRedisAppStore({ redis, now }) : createMemoryAppStore({ now });
  const refresh =
    settings.refresh.mode === 'off'
      ? undefined
      : new RefreshTokens({
          mode: settings.refresh.mode,
          ttlSeconds: settings.refresh.ttlSeconds,
          accessTtlSeconds: settings.jwt.ttlSeconds,
          jwt,
          store: redis ? createRedisRefreshStore({ redis, now }) : createMemoryRefreshStore(now),
          denylist: backend.denylist,
          cookiePath: `/${settings.basePath}/auth`,
          secureCookie: settings.session.secureCookie,
          now,
          onRefresh: credentials.refresh,
        });
  const auth = new Authenticator({
    mode: settings.auth,
    jwt,
    tokens,
    accounts: backend.accounts,
    cookies: new CookieSessions({
      accounts: backend.accounts,
      sessions: backend.sessions,
      keys: keys.sessionKeys,
      cookieName: settings.session.cookieName,
      ttlSeconds: settings.session.ttlSeconds,
      secure: settings.session.secureCookie,
    }),
    denylist: backend.denylist,
    apiKeys: createApiKeyAuth({
      store: apps,
      header: settings.apiKeyHeader,
      now,
      onResult: credentials.apiKey,
    }),
    ...(refresh ? { refresh } : {}),
  });
  return { auth, apps, refresh };
}
