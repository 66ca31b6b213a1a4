import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Seals signature secrets at rest: AES-256-GCM, a random 96-bit IV each time, the endpoint id as AAD. */
export interface SecretBox {
  /** `v1.<iv>.<ciphertext>.<tag>`, base64url. */
  seal(secret: string, endpointId: string): string;
  /** Throws when `sealed` was not sealed by this key for this endpoint (another key, a copied value). */
  open(sealed: string, endpointId: string): string;
}

export const SECRETS_KEY_BYTES = 32;

/** `key`: 32 bytes (`INBOX_SECRETS_KEY`, or random for one process's memory store). */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key has ${SECRETS_KEY_BYTES} bytes`);
  return {
    seal(secret, endpointId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(endpointId));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', iv, sealed, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed, endpointId) {
      const [version, iv, data, tag] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || data === undefined || tag === undefined) {
        throw new Error('not a sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(endpointId))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

/** `INBOX_SECRETS_KEY` as read: 64 hex digits or 32 bytes of base64; undefined for anything else. */
export function decodeSecretsKey(text: string): Buffer | undefined {
  const key = /^[0-9a-fA-F]{64}$/.test(text)
    ? Buffer.from(text, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(text)
      ? Buffer.from(text, 'base64')
      : undefined;
  return key?.length === SECRETS_KEY_BYTES ? key : undefined;
}
