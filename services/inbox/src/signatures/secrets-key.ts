import { randomBytes } from 'node:crypto';
import type { Logger } from '@portcullis/kit';
import { createSecretBox, decodeSecretsKey, SECRETS_KEY_BYTES, type SecretBox } from './secret-box.js';

/**
 * The box for signature secrets: `INBOX_SECRETS_KEY` when set. Without it, the memory store (whose secrets
 * die with the process anyway) gets a random key; Redis gets none, and setting a secret answers 503, so
 * nothing is ever kept in clear or sealed with a key no other replica knows.
 */
export function createSecretsBox(
  secretsKey: string,
  o: { store: 'redis' | 'memory'; log: Logger },
): SecretBox | undefined {
  const key = decodeSecretsKey(secretsKey);
  if (key) return createSecretBox(key);
  if (o.store === 'memory') return createSecretBox(randomBytes(SECRETS_KEY_BYTES));
  o.log.warn('INBOX_SECRETS_KEY is not set: signature presets cannot be set (503 SECRETS_KEY_MISSING)');
  return undefined;
}
