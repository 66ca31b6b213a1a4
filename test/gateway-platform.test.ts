import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  freePort,
  startControlPlane,
  waitUntil,
  quietLog as log,
  type ControlPlane,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startOperator, type OperatorApp, loadSettings as loadOperatorSettings } from '@portcullis/operator';
import { startGateway, type GatewayApp, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import type { RateLimitApp } from '@portcullis/ratelimit';
import { helmPath } from '../hack/helm.js';
import { startXdsRateLimit } from '../services/ratelimit/test/xds-rate-limit.js';

/**
 * The gateway's routes and rate limits from an ApiRoute applied with kubectl: operator (Kubernetes mode,
 * the real API server, as the chart's ServiceAccount with the chart's RBAC) → xDS → gateway (routes) and
 * ratelimit (the generated `gateway` domain).
 */

const run = promisify(execFile);
const NAMESPACE = 'portcullis-system';
const RBAC_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];

/** The operator's ServiceAccount and RBAC objects as the chart renders them for release `portcullis`. */
async function chartOperatorRbac(): Promise<string> {
  const chart = join(import.meta.dirname, '../charts/portcullis');
  const args = ['template', 'portcullis', chart, '-n', NAMESPACE, '--show-only', 'templates/operator.yaml'];
  const { stdout } = await run(helmPath(), args);
  const items = parseAllDocuments(stdout)
    .map((d) => d.toJSON() as { kind: string } | null)
    .filter((m) => m !== null && RBAC_KINDS.includes(m.kind));
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

const apiRoute = (limit: number) => `apiVersion: portcullis.dev/v1alpha1
kind: ApiRoute
metadata: {name: shop, namespace: default}
spec:
  prefix: v1
  routes:
    - name: ping
      method: GET
      path: ping
      auth: false
      handler: Example.ping
      rateLimit:
        requestsPerUnit: ${limit}
        unit: minute
        descriptors:
          - {key: client, from: remoteAddress}
`;

describe('gateway routes and rate limits from kubectl-applied ApiRoutes', () => {
  let cp: ControlPlane;
  let operator: OperatorApp;
  let ratelimit: RateLimitApp;
  let gateway: GatewayApp;
  let dir: string;

  const kubectl = (...args: string[]): Promise<string> => cp.kubectl(args);
  const get = (path: string) => fetch(`http://127.0.0.1:${gateway.port}${path}`);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-platform-'));
    cp = await startControlPlane({ crds: [join(import.meta.dirname, '../crds')] });
    await kubectl('create', 'namespace', NAMESPACE);
    await cp.kubectl(['apply', '-n', NAMESPACE, '-f', '-'], { input: await chartOperatorRbac() });
    const operatorAccount = await cp.serviceAccountKubeconfig(NAMESPACE, 'portcullis-operator');
    operator = await startOperator(
      loadOperatorSettings({
        OPERATOR_SOURCE: 'kubernetes',
        OPERATOR_NAMESPACE: NAMESPACE,
        LEADER_ELECTION_LEASE: 'portcullis-operator',
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '0',
        HEALTH_PORT: '0',
        METRICS_PORT: '0',
      }),
      { log, kubeConfig: operatorAccount.kubeConfig },
    );
    const xds = `127.0.0.1:${operator.ports.xds}`;
    const grpcPort = await freePort();
    ratelimit = await startXdsRateLimit(xds, {
      env: { FORCE_START_WITHOUT_INITIAL_CONFIG: 'true', GRPC_PORT: String(grpcPort) },
    });
    gateway = await startGateway(
      loadGatewaySettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GATEWAY_STATE_DIR: dir,
        GATEWAY_XDS_SERVER_URL: xds,
        GATEWAY_XDS_RETRY_INTERVAL: '100ms',
        GATEWAY_RATELIMIT_URL: `127.0.0.1:${grpcPort}`,
      }),
      { log },
    );
  }, 180_000);
  afterAll(async () => {
    await gateway.close();
    await ratelimit.close();
    await operator.close();
    await cp.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves a route as soon as it is applied, and limits it', async () => {
    expect((await get('/api/v1/ping')).status).toBe(404);
    await writeFile(join(dir, 'shop.yaml'), apiRoute(2));
    await kubectl('apply', '-f', join(dir, 'shop.yaml'));
    await waitUntil(async () => (await get('/api/v1/ping')).status !== 404, 30_000);
    // the first request above may have been counted already; what matters is that a third within the minute is refused
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await get('/api/v1/ping')).status);
    expect(statuses.at(-1)).toBe(429);
    const refused = await get('/api/v1/ping');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'Too many requests', code: 'RATE_LIMITED' });
    expect(refused.headers.get('ratelimit-limit')).toBe('2');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });

  it("writes the ApiRoute's status and the keys Secret with the chart's permissions only", async () => {
    const ready = () =>
      kubectl('get', 'apiroute', 'shop', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}');
    await waitUntil(async () => (await ready()) === 'True', 30_000);
    expect(await kubectl('get', 'secret', 'portcullis-keys', '-n', NAMESPACE, '-o', 'name')).toBe(
      'secret/portcullis-keys\n',
    );
  });

  it('follows an edit of the ApiRoute to a higher limit', async () => {
    await writeFile(join(dir, 'shop.yaml'), apiRoute(1000));
    await kubectl('apply', '-f', join(dir, 'shop.yaml'));
    await waitUntil(async () => (await get('/api/v1/ping')).status === 200, 30_000);
    expect((await get('/api/v1/ping')).headers.get('ratelimit-limit')).toBe('1000');
  });

  it('stops serving a deleted route', async () => {
    await kubectl('delete', 'apiroute', 'shop');
    await waitUntil(async () => (await get('/api/v1/ping')).status === 404, 30_000);
  });
});
