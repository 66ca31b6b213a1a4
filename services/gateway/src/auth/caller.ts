import type { Account } from '@portcullis/accounts';

/** Who is calling and how they proved it. */
export interface Caller {
  /** A platform account, or the user an identity provider's token names. */
  account: CallerAccount;
  via: 'jwt' | 'session' | 'apikey';
  /** An application's roles (an API key's caller); a user's are read only where a route asks. */
  roles?: readonly string[];
  /** The application and key an API key's caller came with. */
  app?: { id: string; keyId: string };
  /** The token's claims, for rate-limit descriptors. */
  claims?: Readonly<Record<string, unknown>>;
  /** What `DELETE /auth` revokes, and until when. */
  token?: { revocationId: string; exp: number; family?: string };
  sessionId?: string;
}

export type CallerAccount = Pick<Account, 'id' | 'username'>;
