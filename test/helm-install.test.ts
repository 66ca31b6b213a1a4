import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startControlPlane, type ControlPlane } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmPath } from '../hack/helm.js';

// The chart installed, upgraded and uninstalled by the real Helm binary on the real kube-apiserver. No
// controller-manager runs, so Deployments never get Pods: what is checked is that the server accepts every
// object and stores what `helm template` renders for the same values.

const repo = join(import.meta.dirname, '..');
const chart = join(repo, 'charts/portcullis');
const production = join(chart, 'ci/production-values.yaml');
const run = promisify(execFile);

/** What the chart can render, for listing a release's objects on the server. */
const KINDS =
  'deployments,services,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings,horizontalpodautoscalers,poddisruptionbudgets,configmaps,secrets';
const CRDS = ['apiroutes.portcullis.dev', 'inboxendpoints.portcullis.dev', 'ratelimitconfigs.portcullis.dev'];

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
}
interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string }>;
}
interface Release {
  name: string;
  namespace: string;
  values: readonly string[];
}

const containersOf = (m: Manifest): Container[] =>
  (m.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;
const envOf = (c: Container | undefined, name: string): string | undefined =>
  c?.env?.find((e) => e.name === name)?.value;
const kindName = (m: Manifest): string => `${m.kind}/${m.metadata.name}`;

describe('helm install, upgrade and uninstall on the real API server', () => {
  let cp: ControlPlane;
  let dir: string;
  let helmEnv: NodeJS.ProcessEnv;

  const helm = async (...args: string[]): Promise<string> =>
    (await run(helmPath(), args, { cwd: repo, env: helmEnv, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 }))
      .stdout;
  const rendered = async (r: Release): Promise<Manifest[]> =>
    parseAllDocuments(
      await helm('template', r.name, chart, '--namespace', r.namespace, '--include-crds', ...r.values),
    )
      .map((d) => d.toJSON() as Manifest | null)
      .filter((m): m is Manifest => m !== null);
  const getJson = async (...args: string[]): Promise<Manifest[]> =>
    (JSON.parse(await cp.kubectl(['get', ...args, '-o', 'json'])) as { items: Manifest[] }).items;
  /** Every object of the release on the server, as `Kind/name`. */
  const onServer = async (r: Release): Promise<string[]> =>
    (await getJson(KINDS, '-A', '-l', `app.kubernetes.io/instance=${r.name}`)).map(kindName).sort();

  /** The server holds exactly the objects `helm template` renders, each with every field the chart set. */
  async function expectInstalledAsRendered(r: Release): Promise<Manifest[]> {
    const manifests = await rendered(r);
    const stored: Manifest[] = [];
    // kubectl reads objects of one namespace at a time (a watched namespace holds the operator's Role)
    for (const ns of new Set(manifests.map((m) => m.metadata.namespace ?? r.namespace))) {
      const items = manifests.filter((m) => (m.metadata.namespace ?? r.namespace) === ns);
      const file = join(dir, `${r.name}-${ns}.json`);
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
      const found = await getJson('-n', ns, '-f', file);
      expect(found.map(kindName)).toEqual(items.map(kindName));
      items.forEach((m, i) => expect(found[i]).toMatchObject(m));
      stored.push(...found);
    }
    const labelled = manifests.filter((m) => m.metadata.labels?.['app.kubernetes.io/instance'] === r.name);
    expect(await onServer(r)).toEqual(labelled.map(kindName).sort());
    return stored;
  }

  beforeAll(async () => {
    cp = await startControlPlane();
    dir = await mkdtemp(join(tmpdir(), 'helm-install-'));
    helmEnv = {
      ...process.env,
      KUBECONFIG: cp.kubeconfigPath,
      HELM_CACHE_HOME: join(dir, 'cache'),
      HELM_CONFIG_HOME: join(dir, 'config'),
      HELM_DATA_HOME: join(dir, 'data'),
    };
  }, 180_000);
  afterAll(async () => {
    await cp.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const portcullis: Release = { name: 'portcullis', namespace: 'portcullis', values: [] };
  const trial: Release = {
    name: 'trial',
    namespace: 'trial',
    values: ['--set', 'redis.bundled.enabled=true'],
  };
  const productionLike: Release = {
    name: 'edge',
    namespace: 'edge',
    // the ServiceMonitor and PrometheusRule need the Prometheus operator's CRDs, which this cluster does not
    // have; the dashboards go to the release's namespace (no `monitoring` namespace here)
    values: ['-f', production, '--set', 'metrics.serviceMonitor.enabled=false']
      .concat(['--set', 'metrics.prometheusRule.enabled=false'])
      .concat(['--set', 'metrics.dashboards.namespace=']),
  };

  it('accepts a server-side dry run on an empty cluster and creates nothing', async () => {
    await cp.kubectl(['create', 'namespace', portcullis.namespace]);
    const out = await helm('install', portcullis.name, chart, '-n', portcullis.namespace, '--dry-run=server');
    expect(out).toMatch(/STATUS: pending-install/);
    expect(await onServer(portcullis)).toEqual([]);
    expect(await getJson('secrets', '-n', portcullis.namespace)).toEqual([]);
    expect(await getJson('crd')).toEqual([]);
  });

  it('installs the chart with its default values: the CRDs, then what helm template renders', async () => {
    await helm('install', portcullis.name, chart, '-n', portcullis.namespace);
    expect((await getJson('crd')).map((c) => c.metadata.name)).toEqual(CRDS);
    const stored = await expectInstalledAsRendered(portcullis);
    const ratelimit = stored.find(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'portcullis-ratelimit',
    );
    expect(envOf(containersOf(ratelimit!)[0], 'KVSTORE_URL')).toBe('redis://redis-master:6379');
  });

  it('installs the chart with the bundled Redis, every service pointed at it', async () => {
    await helm('install', trial.name, chart, '-n', trial.namespace, '--create-namespace', ...trial.values);
    const stored = await expectInstalledAsRendered(trial);
    expect(stored.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name)).toContain(
      'trial-portcullis-redis',
    );
    const gateway = stored.find(
      (m) => m.metadata.name === 'trial-portcullis-gateway' && m.kind === 'Deployment',
    );
    expect(envOf(containersOf(gateway!)[0], 'GATEWAY_REDIS_URL')).toBe('redis://trial-portcullis-redis:6379');
  });

  it('installs the production-like values: autoscaler, disruption budget, a Role in the watched namespace', async () => {
    await cp.kubectl(['create', 'namespace', 'apps']);
    await helm(
      'install',
      productionLike.name,
      chart,
      '-n',
      productionLike.namespace,
      '--create-namespace',
      ...productionLike.values,
    );
    const stored = await expectInstalledAsRendered(productionLike);
    expect(stored.map(kindName)).toEqual(
      expect.arrayContaining([
        'HorizontalPodAutoscaler/edge-portcullis-ratelimit',
        'PodDisruptionBudget/edge-portcullis-ratelimit',
        'Role/edge-portcullis-operator',
      ]),
    );
  });

  it('accepts every example resource once the CRDs are installed', async () => {
    const files = (await readdir(join(repo, 'examples/resources'))).filter((f) => f.endsWith('.yaml'));
    const documents = (
      await Promise.all(
        files.map(async (f) =>
          parseAllDocuments(await readFile(join(repo, 'examples/resources', f), 'utf8')),
        ),
      )
    ).flat();
    const out = await cp.kubectl(['apply', '-f', join(repo, 'examples/resources')]);
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(documents.length);
    expect(lines.filter((l) => !l.endsWith(' created'))).toEqual([]);
  });

  it('upgrades the release: the Deployments change as the new values say', async () => {
    const upgraded: Release = {
      ...portcullis,
      values: ['--set', 'ratelimit.replicas=3', '--set', 'image.tag=0.2.0', '--set', 'logging.level=debug'],
    };
    await helm('upgrade', upgraded.name, chart, '-n', upgraded.namespace, ...upgraded.values);
    const stored = await expectInstalledAsRendered(upgraded);
    const deployments = stored.filter((m) => m.kind === 'Deployment');
    expect(deployments.find((d) => d.metadata.name === 'portcullis-ratelimit')?.spec?.replicas).toBe(3);
    for (const d of deployments) {
      for (const c of containersOf(d)) {
        expect([c.name, c.image.split(':').at(-1), envOf(c, 'LOG_LEVEL')]).toEqual([
          c.name,
          '0.2.0',
          'debug',
        ]);
      }
    }
    const history = JSON.parse(
      await helm('history', upgraded.name, '-n', upgraded.namespace, '-o', 'json'),
    ) as Array<{ revision: number; status: string }>;
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'deployed'],
    ]);
  });

  it('uninstalls the release: its objects go, the CRDs and the custom resources stay', async () => {
    await helm('uninstall', portcullis.name, '-n', portcullis.namespace);
    expect(await onServer(portcullis)).toEqual([]);
    expect(await getJson('secrets', '-n', portcullis.namespace)).toEqual([]);
    expect((await getJson('crd')).map((c) => c.metadata.name)).toEqual(CRDS);
    expect((await getJson('ratelimitconfigs', '-A')).map((m) => m.metadata.name)).toContain('example');
    // the other releases are untouched
    expect(await onServer(trial)).not.toEqual([]);
  });
});
