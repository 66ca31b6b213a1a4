import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as monitoringV1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import * as coreV1 from 'kubernetes-models/v1';
import * as apiextensionsV1 from 'kubernetes-models/apiextensions.k8s.io/v1';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as rbacV1 from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmPath } from '../hack/helm.js';

// The Helm chart with the real Helm binary (hack/helm.ts): lint --strict, template --include-crds for the
// default values and a production-like values file, every manifest validated against the Kubernetes 1.27
// OpenAPI schemas (kubernetes-models) or the Prometheus operator's, and the chart's promises checked on the
// rendered objects. test/helm-install.test.ts installs it on the real API server.

const repo = join(import.meta.dirname, '..');
const chart = join(repo, 'charts/portcullis');
const production = join(chart, 'ci/production-values.yaml');
const run = promisify(execFile);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}
interface Container {
  name: string;
  image: string;
  securityContext?: Record<string, unknown>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
}
interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
}
type Model = new (o: unknown) => { validate(): void };

/** apiVersion → its kinds' models; a manifest whose kind is missing here fails the test. */
const MODELS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  v1: coreV1,
  'apps/v1': appsV1,
  'apiextensions.k8s.io/v1': apiextensionsV1,
  'autoscaling/v2': autoscalingV2,
  'policy/v1': policyV1,
  'rbac.authorization.k8s.io/v1': rbacV1,
  'monitoring.coreos.com/v1': monitoringV1,
};

const helm = async (...args: string[]): Promise<string> =>
  (await run(helmPath(), args, { cwd: repo, maxBuffer: 16 * 1024 * 1024 })).stdout;

async function render(...args: string[]): Promise<Manifest[]> {
  const text = await helm(
    'template',
    'portcullis',
    chart,
    '--namespace',
    'portcullis',
    '--include-crds',
    ...args,
  );
  const docs = parseAllDocuments(text);
  for (const d of docs) expect(d.errors.map((e) => e.message)).toEqual([]);
  return docs.map((d) => d.toJSON() as Manifest | null).filter((m): m is Manifest => m !== null);
}

const podSpecOf = (m: Manifest): PodSpec => (m.spec as { template: { spec: PodSpec } }).template.spec;
const deployments = (all: Manifest[]) => all.filter((m) => m.kind === 'Deployment');
const named = (all: Manifest[], kind: string, name: string): Manifest | undefined =>
  all.find((m) => m.kind === kind && m.metadata.name === name);

describe('Helm chart', () => {
  let byDefault: Manifest[];
  let productionLike: Manifest[];

  beforeAll(async () => {
    [byDefault, productionLike] = await Promise.all([render(), render('-f', production)]);
  }, 60_000);

  it('passes helm lint --strict with the default values and the production-like ones', async () => {
    await helm('lint', '--strict', chart);
    await helm('lint', '--strict', chart, '-f', production);
  });

  it('refuses values outside its schema, naming the key', async () => {
    for (const [set, key] of [
      ['gateway.auth=basic', 'gateway.auth'],
      ['ratelimit.replicas=two', 'ratelimit.replicas'],
      ['inbox.publicUrl=hooks.example.com', 'inbox.publicUrl'],
      ['ratelimit.replica=3', 'replica'],
    ] as const) {
      const failed = await helm('template', 'p', chart, '--set', set).then(
        () => '',
        (err: unknown) => (err as { stderr?: string }).stderr ?? 'failed',
      );
      expect([set, failed]).toEqual([set, expect.stringContaining(key)]);
    }
  });

  it('renders only objects that are valid against the schemas of their kind', () => {
    const problems: string[] = [];
    for (const m of [...byDefault, ...productionLike]) {
      const model = MODELS[m.apiVersion]?.[m.kind] as Model | undefined;
      if (!model) {
        problems.push(`${m.apiVersion} ${m.kind}: no schema`);
        continue;
      }
      try {
        new model(m).validate();
      } catch (err: unknown) {
        problems.push(`${m.kind}/${m.metadata.name}: ${String(err)}`);
      }
    }
    expect(problems).toEqual([]);
    const kinds = (all: Manifest[]) => [...new Set(all.map((m) => m.kind))].sort();
    expect(kinds(byDefault)).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    expect(kinds(productionLike)).toEqual(
      expect.arrayContaining([
        'ConfigMap',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'PrometheusRule',
        'ServiceMonitor',
      ]),
    );
  });

  it('runs every container unprivileged, read-only, with resources, and probes on the servers', () => {
    for (const d of [...deployments(byDefault), ...deployments(productionLike)]) {
      const pod = podSpecOf(d);
      expect([d.metadata.name, pod.securityContext]).toEqual([
        d.metadata.name,
        expect.objectContaining({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }),
      ]);
      expect([d.metadata.name, pod.automountServiceAccountToken]).toEqual([
        d.metadata.name,
        d.metadata.name.endsWith('-operator') ? undefined : false,
      ]);
      for (const c of pod.containers) {
        expect([c.name, c.securityContext]).toEqual([
          c.name,
          { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        ]);
        expect([c.name, c.resources?.limits?.memory]).toEqual([c.name, expect.any(String)]);
        expect([c.name, Boolean(c.readinessProbe), Boolean(c.livenessProbe)]).toEqual([c.name, true, true]);
      }
    }
  });

  it('probes liveness at /healthz and readiness at /readyz, and scrapes the forwarding worker', () => {
    const probes = (deployment: string) => {
      const c = podSpecOf(named(byDefault, 'Deployment', deployment)!).containers[0]!;
      return [c.livenessProbe?.httpGet?.path, c.readinessProbe?.httpGet?.path];
    };
    for (const d of ['portcullis-gateway', 'portcullis-inbox', 'portcullis-inbox-worker']) {
      expect([d, ...probes(d)]).toEqual([d, '/healthz', '/readyz']);
    }
    const worker = named(byDefault, 'Service', 'portcullis-inbox-worker')!.spec as {
      ports: Array<{ name: string; port: number }>;
    };
    expect(worker.ports).toEqual([{ name: 'http', port: 8091, targetPort: 'http' }]);
    const monitor = named(productionLike, 'ServiceMonitor', 'portcullis-inbox-worker')!.spec as {
      endpoints: Array<{ port: string; path: string }>;
    };
    expect(monitor.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
  });

  it('wires the services: images, Redis, the operator xDS address, the shared keys Secret, rate-limit ports', () => {
    const env = (deployment: string) =>
      new Map(
        podSpecOf(named(byDefault, 'Deployment', deployment)!).containers[0]!.env!.map((e) => [e.name, e]),
      );
    expect(podSpecOf(named(byDefault, 'Deployment', 'portcullis-ratelimit')!).containers[0]!.image).toBe(
      'ghcr.io/portcullis-dev/portcullis-ratelimit:0.1.0',
    );
    expect(env('portcullis-ratelimit').get('KVSTORE_URL')?.value).toBe('redis://redis-master:6379');
    // unset: the service picks one worker per CPU the pod may use
    expect(env('portcullis-ratelimit').has('RATELIMIT_WORKERS')).toBe(false);
    expect(env('portcullis-gateway').has('GATEWAY_WORKERS')).toBe(false);
    expect(env('portcullis-ratelimit').get('CONFIG_GRPC_XDS_SERVER_URL')?.value).toBe(
      'portcullis-operator:18000',
    );
    const sessionKey = { secretKeyRef: { name: 'portcullis-keys', key: 'session-key' } };
    expect(env('portcullis-gateway').get('GATEWAY_SESSION_KEYS')?.valueFrom).toEqual(sessionKey);
    expect(env('portcullis-inbox').get('INBOX_SESSION_KEYS')?.valueFrom).toEqual(sessionKey);
    // optional: a keys Secret made before the key existed still starts the inbox (signature secrets refused)
    expect(env('portcullis-inbox').get('INBOX_SECRETS_KEY')?.valueFrom).toEqual({
      secretKeyRef: { name: 'portcullis-keys', key: 'inbox-secrets-key', optional: true },
    });
    expect(env('portcullis-inbox').get('INBOX_RATELIMIT_URL')?.value).toBe('portcullis-ratelimit:8081');
    expect(env('portcullis-operator').get('OPERATOR_DISCOVERY_SERVICES')?.value).toBe(
      'ratelimit=portcullis-ratelimit:grpc',
    );
    const ports = (
      named(byDefault, 'Service', 'portcullis-ratelimit')!.spec as { ports: Array<{ port: number }> }
    ).ports;
    expect(ports.map((p) => p.port)).toEqual([8080, 8081, 6070]);
    // production-like: the Redis URL from a Secret, the image from its registry
    const prodEnv = podSpecOf(named(productionLike, 'Deployment', 'portcullis-inbox-worker')!).containers[0]!
      .env!;
    expect(prodEnv.find((e) => e.name === 'INBOX_REDIS_URL')?.valueFrom).toEqual({
      secretKeyRef: { name: 'portcullis-redis', key: 'url' },
    });
    // the HPA owns the replica count
    expect(named(productionLike, 'Deployment', 'portcullis-ratelimit')!.spec?.replicas).toBeUndefined();
  });

  it('sets RATELIMIT_WORKERS from ratelimit.workers', async () => {
    const [ratelimit] = (await render('--set', 'ratelimit.workers=3')).filter(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'portcullis-ratelimit',
    );
    const env = podSpecOf(ratelimit!).containers[0]!.env!;
    expect(env.find((e) => e.name === 'RATELIMIT_WORKERS')?.value).toBe('3');
  });

  it('issue 37: sets INBOX_WORKERS from inbox.workers, unset by default (one per CPU the pod may use)', async () => {
    const inboxEnv = (manifests: typeof byDefault) =>
      podSpecOf(named(manifests, 'Deployment', 'portcullis-inbox')!).containers[0]!.env!;
    expect(inboxEnv(byDefault).some((e) => e.name === 'INBOX_WORKERS')).toBe(false);
    const set = inboxEnv(await render('--set', 'inbox.workers=3'));
    expect(set.find((e) => e.name === 'INBOX_WORKERS')?.value).toBe('3');
  });

  it('issue 36: sets GATEWAY_WORKERS from gateway.workers', async () => {
    const [gateway] = (await render('--set', 'gateway.workers=3')).filter(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'portcullis-gateway',
    );
    const env = podSpecOf(gateway!).containers[0]!.env!;
    expect(env.find((e) => e.name === 'GATEWAY_WORKERS')?.value).toBe('3');
  });

  it('issue 21: sets the *_DEBUG_PORT profile ports only when asked, in no Service or container port', async () => {
    const ports = {
      'operator.debugPort': ['portcullis-operator', 'OPERATOR_DEBUG_PORT'],
      'gateway.debugPort': ['portcullis-gateway', 'GATEWAY_DEBUG_PORT'],
      'inbox.debugPort': ['portcullis-inbox', 'INBOX_DEBUG_PORT'],
      'inbox.worker.debugPort': ['portcullis-inbox-worker', 'INBOX_WORKER_DEBUG_PORT'],
    } as const;
    const debugEnv = (all: Manifest[]) =>
      deployments(all).flatMap((d) =>
        podSpecOf(d).containers.flatMap((c) =>
          (c.env ?? [])
            .filter((e) => e.name.endsWith('_DEBUG_PORT'))
            .map((e) => [d.metadata.name, e.name, e.value]),
        ),
      );
    expect(debugEnv(byDefault)).toEqual([]);
    const set = Object.keys(ports).flatMap((key, i) => ['--set', `${key}=${6061 + i}`]);
    const asked = await render(...set);
    expect(debugEnv(asked).sort()).toEqual(
      Object.values(ports)
        .map(([deployment, name], i) => [deployment, name, String(6061 + i)])
        .sort(),
    );
    const exposed = JSON.stringify(
      asked.filter((m) => m.kind === 'Service' || m.kind === 'Deployment').map((m) => m.spec),
    );
    for (const port of [6061, 6062, 6063, 6064])
      expect(exposed).not.toMatch(new RegExp(`"(containerPort|port|targetPort)":${port}\\b`));
  });

  it('gives every component the TRACING_* settings of the tracing values, its pod name as instance id', async () => {
    const manifests = await render(
      ...['--set', 'tracing.enabled=true', '--set', 'tracing.endpoint=http://otel-collector:4317'],
      ...['--set', 'tracing.protocol=grpc', '--set-json', 'tracing.samplingRate=0.25'],
      ...['--set', 'tracing.serviceNamespace=shop'],
    );
    const traced = deployments(manifests).map((d) => {
      const env = new Map(podSpecOf(d).containers[0]!.env!.map((e) => [e.name, e]));
      return {
        name: d.metadata.name,
        enabled: env.get('TRACING_ENABLED')?.value,
        protocol: env.get('TRACING_EXPORTER_PROTOCOL')?.value,
        rate: env.get('TRACING_SAMPLING_RATE')?.value,
        namespace: env.get('TRACING_SERVICE_NAMESPACE')?.value,
        instance: env.get('TRACING_SERVICE_INSTANCE_ID')?.valueFrom,
        endpoint: env.get('OTEL_EXPORTER_OTLP_ENDPOINT')?.value,
      };
    });
    const expected = {
      enabled: 'true',
      protocol: 'grpc',
      rate: '0.25',
      namespace: 'shop',
      instance: { fieldRef: { fieldPath: 'metadata.name' } },
      endpoint: 'http://otel-collector:4317',
    };
    expect(traced).toEqual(
      [
        'portcullis-gateway',
        'portcullis-inbox',
        'portcullis-inbox-worker',
        'portcullis-operator',
        'portcullis-ratelimit',
      ].map((name) => ({ name, ...expected })),
    );
    const names = deployments(byDefault).flatMap((d) => podSpecOf(d).containers[0]!.env!.map((e) => e.name));
    expect(names.filter((n) => n.startsWith('TRACING_') || n.startsWith('OTEL_'))).toEqual([]);
  });

  it('gives the gateway GATEWAY_JWT_ISSUERS from gateway.jwtIssuers, as JSON, and checks the entries', async () => {
    const issuers = [
      {
        issuer: 'https://id.example',
        jwksUrl: 'https://id.example/certs',
        audience: ['api'],
        algorithms: ['ES256'],
      },
    ];
    const [gateway] = (await render('--set-json', `gateway.jwtIssuers=${JSON.stringify(issuers)}`)).filter(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'portcullis-gateway',
    );
    const env = podSpecOf(gateway!).containers[0]!.env!;
    expect(JSON.parse(env.find((e) => e.name === 'GATEWAY_JWT_ISSUERS')?.value ?? '')).toEqual(issuers);
    const defaultGateway = named(byDefault, 'Deployment', 'portcullis-gateway');
    expect(podSpecOf(defaultGateway!).containers[0]!.env!.map((e) => e.name)).not.toContain(
      'GATEWAY_JWT_ISSUERS',
    );
    const failed = await helm(
      'template',
      'p',
      chart,
      '--set-json',
      'gateway.jwtIssuers=[{"issuer":"https://id.example","audience":"api","algorithms":["HS256"]}]',
    ).then(
      () => '',
      (err: unknown) => (err as { stderr?: string }).stderr ?? 'failed',
    );
    expect(failed).toContain('jwtIssuers');
  });

  it('renders no environment variable with an empty value (the API server would drop it)', async () => {
    const emptyEnv = await render('--set', 'ratelimit.env.USE_STATSD=');
    const empty = [...byDefault, ...productionLike, ...emptyEnv]
      .filter((m) => m.kind === 'Deployment')
      .flatMap((d) => podSpecOf(d).containers.flatMap((c) => (c.env ?? []).map((e) => ({ d, e }))))
      .filter(({ e }) => e.value === '')
      .map(({ d, e }) => `${d.metadata.name}: ${e.name}`);
    expect(empty).toEqual([]);
  });

  it('gives the operator only the permissions it uses', () => {
    const rules = (m: Manifest | undefined) =>
      (m?.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> | undefined) ?? [];
    const all = [
      ...rules(named(byDefault, 'ClusterRole', 'portcullis-operator')),
      ...rules(named(byDefault, 'Role', 'portcullis-operator-local')),
    ];
    expect(all.flatMap((r) => [...r.verbs, ...r.resources, ...r.apiGroups])).not.toContain('*');
    expect(all.flatMap((r) => r.verbs)).not.toContain('delete');
    // Secrets: read by name (those InboxEndpoints name), never listed or watched
    const onSecrets = all.filter((r) => r.resources.includes('secrets')).flatMap((r) => r.verbs);
    expect([...new Set(onSecrets)].sort()).toEqual(['create', 'get']);
    // watchNamespace turns the cluster role into a namespaced one
    expect(named(productionLike, 'ClusterRole', 'portcullis-operator')).toBeUndefined();
    expect(named(productionLike, 'Role', 'portcullis-operator')?.metadata.namespace).toBe('apps');
  });

  it('mounts extra volumes where the values ask (certificates for TLS settings)', () => {
    const spec = podSpecOf(named(productionLike, 'Deployment', 'portcullis-ratelimit')!) as PodSpec & {
      volumes?: Array<{ name: string; secret?: { secretName: string } }>;
      containers: Array<Container & { volumeMounts?: Array<{ name: string; mountPath: string }> }>;
    };
    expect(spec.volumes).toEqual([{ name: 'redis-tls', secret: { secretName: 'redis-ca' } }]);
    expect(spec.containers[0]!.volumeMounts).toEqual([
      { name: 'redis-tls', mountPath: '/etc/portcullis/redis-tls', readOnly: true },
    ]);
    const env = spec.containers[0]!.env!;
    expect(env.find((e) => e.name === 'KVSTORE_TLS_CACERT')?.value).toBe('/etc/portcullis/redis-tls/ca.crt');
    // a component without extra volumes keeps only its own
    const gateway = podSpecOf(named(productionLike, 'Deployment', 'portcullis-gateway')!) as PodSpec & {
      volumes?: Array<{ name: string }>;
    };
    expect(gateway.volumes?.map((v) => v.name)).toEqual(['tmp']);
  });

  it('issue 20: serves the gateway over HTTPS from gateway.tls.secretName, probes and scrape included', async () => {
    const manifests = await render(
      ...['--set', 'gateway.tls.secretName=gateway-cert', '--set', 'metrics.serviceMonitor.enabled=true'],
      ...['--set', 'gateway.trustProxy={10.0.0.0/8,192.168.1.7}'],
    );
    const spec = podSpecOf(named(manifests, 'Deployment', 'portcullis-gateway')!) as PodSpec & {
      volumes?: Array<{ name: string; secret?: { secretName: string } }>;
      containers: Array<
        Container & {
          volumeMounts?: Array<{ name: string; mountPath: string }>;
          readinessProbe?: { httpGet?: { scheme?: string } };
          livenessProbe?: { httpGet?: { scheme?: string } };
        }
      >;
    };
    const container = spec.containers[0]!;
    const env = new Map(container.env!.map((e) => [e.name, e.value]));
    expect(env.get('GATEWAY_TLS_CERT')).toBe('/etc/portcullis/gateway-tls/tls.crt');
    expect(env.get('GATEWAY_TLS_KEY')).toBe('/etc/portcullis/gateway-tls/tls.key');
    expect(env.get('GATEWAY_TRUST_PROXY')).toBe('10.0.0.0/8,192.168.1.7');
    expect(spec.volumes).toContainEqual({ name: 'gateway-tls', secret: { secretName: 'gateway-cert' } });
    // no subPath: the kubelet's symlink swap of a renewed Secret reaches the files the gateway polls
    expect(container.volumeMounts).toContainEqual({
      name: 'gateway-tls',
      mountPath: '/etc/portcullis/gateway-tls',
      readOnly: true,
    });
    expect([container.readinessProbe?.httpGet?.scheme, container.livenessProbe?.httpGet?.scheme]).toEqual([
      'HTTPS',
      'HTTPS',
    ]);
    const monitor = named(manifests, 'ServiceMonitor', 'portcullis-gateway')?.spec as {
      endpoints: Array<{ scheme?: string }>;
    };
    expect(monitor.endpoints[0]?.scheme).toBe('https');

    const plain = podSpecOf(named(byDefault, 'Deployment', 'portcullis-gateway')!).containers[0]!;
    expect(plain.env!.map((e) => e.name)).not.toContain('GATEWAY_TLS_CERT');
    expect(plain.env!.find((e) => e.name === 'GATEWAY_TRUST_PROXY')?.value).toBe('false');
  });

  it('renders a bundled Redis only when asked, and then points every service at it', async () => {
    expect(byDefault.some((m) => m.metadata.name === 'portcullis-redis')).toBe(false);
    const bundled = await render('--set', 'redis.bundled.enabled=true');
    expect(named(bundled, 'Deployment', 'portcullis-redis')).toBeDefined();
    const gatewayEnv = podSpecOf(named(bundled, 'Deployment', 'portcullis-gateway')!).containers[0]!.env!;
    expect(gatewayEnv.find((e) => e.name === 'GATEWAY_REDIS_URL')?.value).toBe(
      'redis://portcullis-redis:6379',
    );
  });

  it('gives every service the Redis type, passwords and TLS files of the redis values, by its own names', async () => {
    const manifests = await render(
      ...['--set', 'redis.type=sentinel', '--set-string', 'redis.url=mymaster\\,10.0.0.1:26379'],
      ...[
        '--set',
        'redis.auth.existingSecret.name=redis-auth',
        '--set',
        'redis.sentinelAuth.existingSecret.name=s',
      ],
      ...['--set', 'redis.tls.enabled=true', '--set', 'redis.tls.secretName=redis-certs'],
      ...['--set', 'redis.tls.clientCertificate=true'],
    );
    const prefixes = {
      'portcullis-gateway': 'GATEWAY_REDIS_',
      'portcullis-inbox': 'INBOX_REDIS_',
      'portcullis-inbox-worker': 'INBOX_REDIS_',
      'portcullis-ratelimit': 'KVSTORE_',
    };
    for (const [deployment, p] of Object.entries(prefixes)) {
      const spec = podSpecOf(named(manifests, 'Deployment', deployment)!) as PodSpec & {
        volumes?: Array<{ name: string; secret?: { secretName: string } }>;
        containers: Array<Container & { volumeMounts?: Array<{ name: string; mountPath: string }> }>;
      };
      const env = new Map(spec.containers[0]!.env!.map((e) => [e.name, e]));
      expect(env.get(`${p}URL`)?.value).toBe('mymaster,10.0.0.1:26379');
      expect(env.get(`${p}TYPE`)?.value).toBe('sentinel');
      expect(env.get(`${p}AUTH`)?.valueFrom).toEqual({
        secretKeyRef: { name: 'redis-auth', key: 'password' },
      });
      expect(env.get(`${p}SENTINEL_AUTH`)?.valueFrom).toEqual({
        secretKeyRef: { name: 's', key: 'sentinel-password' },
      });
      expect(env.get(`${p}TLS`)?.value).toBe('true');
      expect(env.get(`${p}TLS_CACERT`)?.value).toBe('/etc/portcullis/redis-tls/ca.crt');
      expect(env.get(`${p}TLS_CLIENT_CERT`)?.value).toBe('/etc/portcullis/redis-tls/tls.crt');
      expect(env.get(`${p}TLS_CLIENT_KEY`)?.value).toBe('/etc/portcullis/redis-tls/tls.key');
      expect(spec.volumes).toContainEqual({ name: 'redis-tls', secret: { secretName: 'redis-certs' } });
      expect(spec.containers[0]!.volumeMounts).toContainEqual({
        name: 'redis-tls',
        mountPath: '/etc/portcullis/redis-tls',
        readOnly: true,
      });
    }
  });

  it("ships the dashboards to Grafana's sidecar and the alerts as a PrometheusRule, only when asked", async () => {
    const readme = await readFile(join(chart, 'README.md'), 'utf8');
    expect(byDefault.filter((m) => ['ConfigMap', 'PrometheusRule'].includes(m.kind))).toEqual([]);
    const dashboards = productionLike.filter((m) => m.kind === 'ConfigMap');
    expect(dashboards.map((m) => m.metadata.name).sort()).toEqual(
      ['gateway', 'inbox', 'operator', 'overview', 'ratelimit'].map((n) => `portcullis-dashboard-${n}`),
    );
    for (const m of dashboards) {
      const meta = m.metadata as {
        namespace?: string;
        labels?: Record<string, string>;
        annotations?: object;
      };
      expect([m.metadata.name, meta.namespace, meta.labels?.grafana_dashboard, meta.annotations]).toEqual([
        m.metadata.name,
        'monitoring',
        '1',
        { grafana_folder: 'Portcullis' },
      ]);
      const [file, json] = Object.entries(m.data as Record<string, string>)[0] ?? [];
      expect(JSON.parse(json ?? '')).toMatchObject({ uid: file?.replace('.json', '') });
    }
    const rule = named(productionLike, 'PrometheusRule', 'portcullis-alerts');
    expect(rule?.metadata).toMatchObject({ labels: { release: 'kube-prometheus-stack' } });
    const rules = (rule?.spec as { groups: Array<{ rules: Array<Record<string, unknown>> }> }).groups.flatMap(
      (g) => g.rules,
    );
    for (const r of rules) {
      const labels = r.labels as Record<string, string>;
      const notes = r.annotations as Record<string, string>;
      expect([r.alert, labels.severity, labels.team]).toEqual([r.alert, labels.severity, 'edge']);
      expect(['warning', 'critical']).toContain(labels.severity);
      expect(Object.keys(notes).sort()).toEqual(['description', 'runbook_url', 'summary']);
      expect(notes.runbook_url).toMatch(/README\.md#portcullis[a-z]+$/);
      // the runbook: a section of the chart README named for the alert
      expect(readme).toContain(`\n### ${String(r.alert)}\n`);
      expect(notes.runbook_url?.endsWith(`#${String(r.alert).toLowerCase()}`)).toBe(true);
      // scoped to this release's jobs in its namespace
      expect(r.expr).toContain('namespace="portcullis", job=');
    }
  });
});
