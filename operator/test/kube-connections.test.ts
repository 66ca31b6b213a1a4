import { createServer, type Server } from 'node:https';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createCertificates } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reuseConnections } from '../src/kube-config.js';

/** A TLS server answering every request with a Namespace, counting connections and the tokens it saw. */
let server: Server;
let connections = 0;
const tokens: string[] = [];
let kubeConfig: () => KubeConfig;

beforeAll(async () => {
  const certs = await createCertificates();
  server = createServer(
    { cert: await readFile(certs.serverCert), key: await readFile(certs.serverKey) },
    (req, res) => {
      tokens.push(req.headers.authorization ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    },
  );
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  kubeConfig = () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: `https://127.0.0.1:${port}`, caFile: certs.caCert, skipTLSVerify: false },
      ],
      users: [{ name: 'u', token: 'first' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc;
  };
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function connectionsFor(kc: KubeConfig, requests: number): Promise<number> {
  const api = kc.makeApiClient(CoreV1Api);
  const before = connections;
  for (let i = 0; i < requests; i++) await api.readNamespace({ name: 'default' });
  return connections - before;
}

describe('reuseConnections', () => {
  it("opens one connection for sequential requests, where client-node's own agents open one each", async () => {
    expect(await connectionsFor(kubeConfig(), 5)).toBe(5);
    expect(await connectionsFor(reuseConnections(kubeConfig()), 5)).toBe(1);
  });

  it('still applies the current credentials to every request', async () => {
    const kc = reuseConnections(kubeConfig());
    tokens.length = 0;
    await connectionsFor(kc, 1);
    const user = kc.getCurrentUser();
    if (user) Object.assign(user, { token: 'second' });
    expect(await connectionsFor(kc, 1)).toBe(0);
    expect(tokens).toEqual(['Bearer first', 'Bearer second']);
  });
});
