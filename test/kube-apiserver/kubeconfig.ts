import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/**
 * Kubeconfig for the test server. The server is plain HTTP and accepts any bearer token;
 * `insecure-skip-tls-verify` is what lets client-node 1.x talk to an `http://` server at all.
 */

export const KUBECONFIG_NAME = 'portcullis-test';
export const KUBECONFIG_TOKEN = 'portcullis-test-token';

export function renderKubeconfig(url: string, namespace = 'default'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_NAME, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: KUBECONFIG_NAME, user: { token: KUBECONFIG_TOKEN } }],
    contexts: [
      { name: KUBECONFIG_NAME, context: { cluster: KUBECONFIG_NAME, user: KUBECONFIG_NAME, namespace } },
    ],
    'current-context': KUBECONFIG_NAME,
  });
}

export function createKubeConfig(url: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig(url));
  return kc;
}
