/** An application: what an API key authenticates its caller as (AppApi's model). */
export interface Application {
  /** Random, URL-safe (base64url of 12 bytes). */
  id: string;
  name: string;
  roles: string[];
  /** ISO 8601, UTC. */
  createdAt: string;
}

/** An API key as it is listed: never the key, which is shown once at creation and stored only hashed. */
export interface ApiKeyInfo {
  id: string;
  appId: string;
  name: string;
  createdAt: string;
  /** ISO 8601; absent: the key does not expire. */
  expiresAt?: string;
  /** ISO 8601, once revoked; a revoked key is kept so listings show it. */
  revokedAt?: string;
}

export interface NewApplication {
  name: string;
  roles: string[];
}

export interface NewApiKey {
  name: string;
  expiresAt?: string;
}

/** Applications, their keys (by SHA-256 of the key) and the roles of users. */
export interface AppStore {
  createApp(input: NewApplication): Promise<Application>;
  getApp(id: string): Promise<Application | undefined>;
  /** Ordered by creation time. */
  listApps(): Promise<Application[]>;
  /** The key, to be shown once, and its listing; undefined when the application does not exist. */
  createKey(appId: string, input: NewApiKey): Promise<{ key: string; info: ApiKeyInfo } | undefined>;
  /** Undefined when the application does not exist. */
  listKeys(appId: string): Promise<ApiKeyInfo[] | undefined>;
  /** False when the application has no such key; revoking twice keeps the first time. */
  revokeKey(appId: string, keyId: string): Promise<boolean>;
  /** The key's listing and application by the key's hash, expired or revoked ones included. */
  findByKeyHash(hash: string): Promise<{ key: ApiKeyInfo; app: Application } | undefined>;
  setUserRoles(accountId: string, roles: string[]): Promise<void>;
  /** Empty for a user never given roles. */
  userRoles(accountId: string): Promise<string[]>;
}
