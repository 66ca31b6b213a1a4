import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { codeOf } from './kube-error-code.js';

/**
 * Keys of the Secret the gateway and inbox read, each with how a new one is made: the services read them as
 * environment variables, so text. The JWT signing key and the session cookie key are 64 base64url
 * characters; the inbox's secrets key (`INBOX_SECRETS_KEY`, which seals signature secrets with AES-256-GCM)
 * is 32 bytes as 64 hex digits.
 */
const NEW_KEYS = {
  'jwt-signing-key': () => randomBytes(48).toString('base64url'),
  'session-key': () => randomBytes(48).toString('base64url'),
  'inbox-secrets-key': () => randomBytes(32).toString('hex'),
} as const;
export const KEY_NAMES = Object.keys(NEW_KEYS) as (keyof typeof NEW_KEYS)[];

/**
 * Creates the keys Secret once, with random keys, if it does not exist: the cluster form of "saving the
 * settings page generates the secret". An existing Secret is never changed, so keys survive restarts
 * and can be rotated by hand.
 */
export async function ensureKeysSecret(o: {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  log: Logger;
}): Promise<'created' | 'exists'> {
  const api = o.kubeConfig.makeApiClient(CoreV1Api);
  try {
    await api.readNamespacedSecret({ namespace: o.namespace, name: o.name });
    return 'exists';
  } catch (err: unknown) {
    if (codeOf(err) !== 404) throw err;
  }
  try {
    await api.createNamespacedSecret({
      namespace: o.namespace,
      body: {
        metadata: {
          name: o.name,
          namespace: o.namespace,
          labels: { 'app.kubernetes.io/part-of': 'portcullis' },
        },
        type: 'Opaque',
        stringData: Object.fromEntries(KEY_NAMES.map((k) => [k, NEW_KEYS[k]()])),
      },
    });
  } catch (err: unknown) {
    if (codeOf(err) === 409) return 'exists';
    throw err;
  }
  o.log.info({ secret: `${o.namespace}/${o.name}` }, 'keys secret created');
  return 'created';
}
