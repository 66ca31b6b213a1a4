// A real Kubernetes control plane for tests, the way controller-runtime's envtest makes one: etcd and
// kube-apiserver (built by `npm run peers`) on free loopback ports with a fresh data directory, secure
// serving with a certificate from a throw-away CA, service-account signing keys (so the TokenRequest API
// works), RBAC on, and an admin identity from a token file. No controller-manager runs: nothing creates
// Pods, ServiceAccount token Secrets or EndpointSlices on its own, and namespaces never finish deleting.
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { createCertificates } from './certificates.js';
import { freePort } from './free-port.js';
import { spawnLogged, type LoggedProcess } from './logged-process.js';
import { peerPath } from './peers.js';
import { waitFor } from './wait.js';

const run = promisify(execFile);

export interface ControlPlaneOptions {
  /** Folders or files of CustomResourceDefinitions to apply, and wait for, once the API server is ready. */
  crds?: readonly string[];
  /** More kube-apiserver flags (`--watch-cache=false`, say). */
  apiServerArgs?: readonly string[];
}

export interface ControlPlane {
  /** `https://127.0.0.1:<port>` */
  url: string;
  /** An admin kubeconfig (group system:masters), for kubectl and helm. */
  kubeconfigPath: string;
  /** Where kubectl keeps its discovery cache (`KUBECACHEDIR`), so ~/.kube stays untouched. */
  cacheDir: string;
  /** How long etcd and kube-apiserver took to become ready, in ms. */
  startupMs: number;
  /** A client-node KubeConfig for the admin. */
  kubeConfig(): KubeConfig;
  /** Runs the real kubectl as the admin (or with the kubeconfig given) and resolves with its stdout. */
  kubectl(args: readonly string[], opts?: { kubeconfigPath?: string; input?: string }): Promise<string>;
  /**
   * A kubeconfig that acts as a ServiceAccount, with a token from the TokenRequest API: what a Pod
   * running as that ServiceAccount would get.
   */
  serviceAccountKubeconfig(
    namespace: string,
    name: string,
  ): Promise<{ path: string; kubeConfig: KubeConfig }>;
  /** Stops kube-apiserver and starts it again on the same port and etcd (watches break, data stays). */
  restartApiServer(): Promise<void>;
  /** Compacts etcd's history up to its current revision: watches from older resourceVersions get 410. */
  compactEtcd(): Promise<void>;
  close(): Promise<void>;
}

interface HttpsOptions {
  ca: Buffer;
  token: string;
  method?: string;
  body?: string;
}

/** One HTTPS request to the API server with the test CA; resolves with status and body. */
function callApi(url: string, opts: HttpsOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        ca: opts.ca,
        headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
        timeout: 5000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Waits (60 s at most) until `check` holds, failing at once, with the process's output, if it exits. */
async function waitReady(what: string, check: () => Promise<boolean>, p: LoggedProcess): Promise<void> {
  const context = (): string => p.output().slice(-3000);
  await waitFor(
    async () => {
      if (p.child.exitCode !== null)
        throw new Error(`${what} exited with ${p.child.exitCode}:\n${context()}`);
      return check().catch(() => false);
    },
    (ready) => ready,
    { timeoutMs: 60_000, what: `${what} ready`, context },
  );
}

function kubeconfigYaml(server: string, ca: Buffer, user: { name: string; token: string }): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server, 'certificate-authority-data': ca.toString('base64') } }],
    users: [{ name: user.name, user: { token: user.token } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: user.name, namespace: 'default' } }],
    'current-context': 'test',
  });
}

/** Starts etcd and kube-apiserver; `close()` stops both and removes their data. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-control-plane-'));
  const cacheDir = join(dir, 'kubectl-cache');
  const certs = await createCertificates();
  const ca = await readFile(certs.caCert);
  const adminToken = randomBytes(24).toString('hex');
  await writeFile(join(dir, 'tokens.csv'), `${adminToken},admin,admin,"system:masters"\n`);
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(join(dir, 'sa.key'), signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await writeFile(join(dir, 'sa.pub'), signing.publicKey.export({ type: 'spki', format: 'pem' }));
  await mkdir(cacheDir);

  const [etcdPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const etcd = spawnLogged(
    peerPath('etcd'),
    [
      '--name=test',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=test=http://127.0.0.1:${etcdPeerPort}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    {},
  );
  const closeAll: Array<() => Promise<void>> = [];
  let apiServer: LoggedProcess | undefined;
  const url = `https://127.0.0.1:${apiPort}`;
  const startApiServer = async (): Promise<void> => {
    const p = spawnLogged(
      peerPath('kube-apiserver'),
      [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        `--cert-dir=${join(dir, 'apiserver-certs')}`,
        `--tls-cert-file=${certs.serverCert}`,
        `--tls-private-key-file=${certs.serverKey}`,
        `--client-ca-file=${certs.caCert}`,
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        '--authorization-mode=RBAC',
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        ...(opts.apiServerArgs ?? []),
      ],
      {},
    );
    apiServer = p;
    await waitReady(
      'kube-apiserver',
      async () => {
        const r = await callApi(`${url}/readyz`, { ca, token: adminToken });
        return r.status === 200;
      },
      p,
    );
  };
  const close = async (): Promise<void> => {
    for (const stop of closeAll.reverse()) await stop();
    await rm(dir, { recursive: true, force: true });
    await rm(certs.dir, { recursive: true, force: true });
  };
  try {
    closeAll.push(() => etcd.stop());
    await waitReady(
      'etcd',
      async () => {
        const r = await fetch(`${etcdUrl}/health`);
        return r.ok && ((await r.json()) as { health?: string }).health === 'true';
      },
      etcd,
    );
    closeAll.push(async () => {
      if (apiServer) await apiServer.stop();
    });
    await startApiServer();
  } catch (e: unknown) {
    await close();
    throw e;
  }

  const kubeconfigPath = join(dir, 'admin.kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, ca, { name: 'admin', token: adminToken }));
  const kubectl: ControlPlane['kubectl'] = async (args, o = {}) => {
    const env = { ...process.env, KUBECONFIG: o.kubeconfigPath ?? kubeconfigPath, KUBECACHEDIR: cacheDir };
    const child = run('kubectl', [...args], { env, timeout: 60_000 });
    if (o.input !== undefined) child.child.stdin?.end(o.input);
    return (await child).stdout;
  };
  if (opts.crds?.length) {
    try {
      await kubectl(['apply', '--server-side', ...opts.crds.flatMap((path) => ['-f', path])]);
      await kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd', '--all']);
    } catch (e: unknown) {
      await close();
      throw e;
    }
  }
  const fromYaml = (text: string): KubeConfig => {
    const kc = new KubeConfig();
    kc.loadFromString(text);
    return kc;
  };
  let accounts = 0;
  const startupMs = Date.now() - started;
  process.stderr.write(`control plane (etcd + kube-apiserver) at ${url} ready in ${startupMs} ms\n`);
  return {
    url,
    kubeconfigPath,
    cacheDir,
    startupMs,
    kubeConfig: () => fromYaml(readFileSync(kubeconfigPath, 'utf8')),
    kubectl,
    async serviceAccountKubeconfig(namespace, name) {
      const r = await callApi(`${url}/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
        ca,
        token: adminToken,
        method: 'POST',
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        }),
      });
      if (r.status !== 201) throw new Error(`TokenRequest for ${namespace}/${name}: ${r.status} ${r.body}`);
      const token = (JSON.parse(r.body) as { status: { token: string } }).status.token;
      const text = kubeconfigYaml(url, ca, { name: `system:serviceaccount:${namespace}:${name}`, token });
      const path = join(dir, `sa-${++accounts}.kubeconfig`);
      await writeFile(path, text);
      return { path, kubeConfig: fromYaml(text) };
    },
    async restartApiServer() {
      if (apiServer) await apiServer.stop();
      await startApiServer();
    },
    async compactEtcd() {
      const range = await fetch(`${etcdUrl}/v3/kv/range`, {
        method: 'POST',
        body: JSON.stringify({ key: Buffer.from('/').toString('base64'), limit: 1 }),
      });
      const revision = ((await range.json()) as { header: { revision: string } }).header.revision;
      const r = await fetch(`${etcdUrl}/v3/kv/compaction`, {
        method: 'POST',
        body: JSON.stringify({ revision, physical: true }),
      });
      if (!r.ok) throw new Error(`etcd compaction at ${revision}: ${r.status} ${await r.text()}`);
    },
    close,
  };
}

/**
 * `kc`'s cluster and user, reaching the API server on `127.0.0.1:port` instead: through a `TcpProxy` in front
 * of it (TLS passes through the proxy, so the cluster's CA and name still apply).
 */
export function kubeConfigVia(kc: KubeConfig, port: number): KubeConfig {
  const via = new KubeConfig();
  via.loadFromOptions({
    clusters: [{ ...kc.getCurrentCluster(), name: 'c', server: `https://127.0.0.1:${port}` }],
    users: [{ ...kc.getCurrentUser(), name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return via;
}
