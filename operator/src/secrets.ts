import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { codeOf } from './status/status-writer.js';

/** Keys of the Secret the gateway and inbox read: the JWT signing key and the session cookie key. */
export const KEY_NAMES = ['jwt-signing-key', 'session-key'] as const;

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
        // the services read these as environment variables: text keys (64 base64url characters), not bytes
        stringData: Object.fromEntries(KEY_NAMES.map((k) => [k, randomBytes(48).toString('base64url')])),
      },
    });
  } catch (err: unknown) {
    if (codeOf(err) === 409) return 'exists';
    throw err;
  }
  o.log.info({ secret: `${o.namespace}/${o.name}` }, 'keys secret created');
  return 'created';
}
