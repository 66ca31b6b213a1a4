import { AuthenticationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import {
  kubeConfigVia,
  startControlPlane,
  startTcpProxy,
  type ControlPlane,
  type TcpProxy,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reuseConnections } from '../src/kube-config.js';

// The real kube-apiserver, its own TLS and token authentication, behind a TCP proxy that counts the
// connections made to it (TLS passes through the proxy untouched).
let cp: ControlPlane;
let proxy: TcpProxy;
let serviceAccountToken = '';
let kubeConfig: () => KubeConfig;

beforeAll(async () => {
  cp = await startControlPlane();
  proxy = await startTcpProxy(Number(new URL(cp.url).port));
  await cp.kubectl(['create', 'serviceaccount', 'tester', '--namespace', 'default']);
  const tester = await cp.serviceAccountKubeconfig('default', 'tester');
  serviceAccountToken = tester.kubeConfig.getCurrentUser()?.token ?? '';
  kubeConfig = () => kubeConfigVia(cp.kubeConfig(), proxy.port);
}, 180_000);

afterAll(async () => {
  await proxy.close();
  await cp.close();
}, 60_000);

async function connectionsFor(kc: KubeConfig, requests: number): Promise<number> {
  const api = kc.makeApiClient(CoreV1Api);
  const before = proxy.connections();
  for (let i = 0; i < requests; i++) await api.readNamespace({ name: 'default' });
  return proxy.connections() - before;
}

/** Who the API server took the request's credentials for. */
async function whoAmI(kc: KubeConfig): Promise<string | undefined> {
  const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  return review.status?.userInfo?.username;
}

describe('reuseConnections', () => {
  it("opens one connection for sequential requests, where client-node's own agents open one each", async () => {
    expect(await connectionsFor(kubeConfig(), 5)).toBe(5);
    expect(await connectionsFor(reuseConnections(kubeConfig()), 5)).toBe(1);
  });

  it('still applies the current credentials to every request', async () => {
    const kc = reuseConnections(kubeConfig());
    const before = proxy.connections();
    const first = await whoAmI(kc);
    const user = kc.getCurrentUser();
    if (user) Object.assign(user, { token: serviceAccountToken });
    expect([first, await whoAmI(kc), proxy.connections() - before]).toEqual([
      'admin',
      'system:serviceaccount:default:tester',
      1,
    ]);
  });
});
