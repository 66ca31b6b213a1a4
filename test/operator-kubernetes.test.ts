import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoordinationV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { startRedis, type RedisServer, quietLog as log } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '../operator/src/app.js';
import { loadSettings as loadOperatorSettings } from '../operator/src/settings.js';
import { startRateLimit, type RateLimitApp } from '../services/ratelimit/src/app.js';
import { loadSettings as loadRateLimitSettings } from '../services/ratelimit/src/settings.js';
import { startKubeApiServer, type KubeApiServer } from './kube-apiserver/index.js';

/**
 * The operator in Kubernetes mode against the test API server (real REST semantics, the real kubectl),
 * feeding a rate-limit service in xDS mode that counts in a real Redis.
 */

const repo = join(import.meta.dirname, '..');
const run = promisify(execFile);
const G = { group: 'portcullis.dev', version: 'v1alpha1', plural: 'ratelimitconfigs', namespace: 'default' };

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
}
interface Rlc {
  metadata: { generation: number };
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in time; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('operator with the Kubernetes API', () => {
  let api: KubeApiServer;
  let redis: RedisServer;
  let operator: OperatorApp;
  let ratelimit: RateLimitApp;
  let objects: CustomObjectsApi;
  /** Kept across an operator restart, so the service reconnects where it was. */
  let xdsPort = 0;

  const kubectl = async (...args: string[]): Promise<string> => {
    const env = { ...process.env, KUBECONFIG: api.kubeconfigPath, KUBECACHEDIR: api.cacheDir };
    const { stdout } = await run('kubectl', args, { env, timeout: 20_000, cwd: repo });
    return stdout;
  };
  /** Waits until `kubectl get events` lists `<type> <reason> <object name>`. */
  const expectEvent = async (line: string): Promise<void> => {
    const events = await until(
      () =>
        kubectl(
          'get',
          'events',
          '-o',
          'jsonpath={range .items[*]}{.type} {.reason} {.involvedObject.name}{"\\n"}{end}',
        ),
      (out) => out.includes(line),
    );
    expect(events).toContain(line);
  };
  const operatorSettings = () =>
    loadOperatorSettings({
      OPERATOR_SOURCE: 'kubernetes',
      OPERATOR_NAMESPACE: 'portcullis-system',
      POD_NAME: 'operator-0',
      XDS_HOST: '127.0.0.1',
      XDS_PORT: String(xdsPort),
      HEALTH_PORT: '0',
      METRICS_PORT: '0',
      LEADER_ELECTION_LEASE_DURATION: '2s',
      LEADER_ELECTION_RENEW_DEADLINE: '1500ms',
      LEADER_ELECTION_RETRY_PERIOD: '200ms',
    });
  const limitOf = async (domain: string, value = String(Math.random())): Promise<number | undefined> => {
    const r = await fetch(`http://127.0.0.1:${ratelimit.ports.http}/json`, {
      method: 'POST',
      body: JSON.stringify({ domain, descriptors: [{ entries: [{ key: 'to_number', value }] }] }),
    });
    const body = (await r.json()) as { statuses: Array<{ currentLimit?: { requestsPerUnit: number } }> };
    return body.statuses[0]?.currentLimit?.requestsPerUnit;
  };
  /** `kubectl patch` replacing the descriptors of a RateLimitConfig (a merge patch replaces lists whole). */
  const patchDescriptors = (name: string, descriptorsJson: string): Promise<string> =>
    kubectl('patch', 'rlc', name, '--type', 'merge', '-p', `{"spec":{"descriptors":${descriptorsJson}}}`);
  const rlc = async (name: string): Promise<Rlc> =>
    (await objects.getNamespacedCustomObject({ ...G, name })) as Rlc;
  const condition = (r: Rlc, type: string): Condition | undefined =>
    r.status?.conditions?.find((c) => c.type === type);

  beforeAll(async () => {
    api = await startKubeApiServer({ crdDirs: [join(repo, 'crds')] });
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'portcullis-system' } } });
    objects = api.kubeConfig().makeApiClient(CustomObjectsApi);
    redis = await startRedis();
    operator = await startOperator(operatorSettings(), { log, kubeConfig: api.kubeConfig() });
    xdsPort = operator.ports.xds;
    await kubectl('apply', '-f', 'examples/resources/');
    ratelimit = await startRateLimit(
      loadRateLimitSettings({
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        CONFIG_TYPE: 'GRPC_XDS_SOTW',
        CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${operator.ports.xds}`,
        CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-0',
        CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '100ms',
        HOST: '127.0.0.1',
        PORT: '0',
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        DEBUG_HOST: '127.0.0.1',
        DEBUG_PORT: '0',
        RESPONSE_DYNAMIC_METADATA: 'true',
      }),
      { log },
    );
  });
  afterAll(async () => {
    await ratelimit.close();
    await operator.close();
    await redis.stop();
    await api.close();
  });

  it('serves what kubectl applied and reports it Accepted and Ready, with printer columns', async () => {
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === 100,
      ),
    ).toBe(100);
    const r = await until(
      () => rlc('messaging'),
      (x) => condition(x, 'Ready')?.status === 'True',
    );
    expect(r.status?.observedGeneration).toBe(1);
    expect(r.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).toEqual([
      ['Accepted', 'True', 'Accepted', 1],
      ['Ready', 'True', 'Served', 1],
    ]);
    const table = await kubectl('get', 'rlc');
    expect(table).toMatch(/^NAME\s+DOMAIN\s+READY\s+AGE\n/);
    expect(table).toMatch(/^messaging\s+messaging\s+True\s+\d+s$/m);
  });

  it('creates the keys Secret and holds the Lease as leader', async () => {
    expect(operator.isLeader()).toBe(true);
    const core = api.kubeConfig().makeApiClient(CoreV1Api);
    const secret = await core.readNamespacedSecret({
      namespace: 'portcullis-system',
      name: 'portcullis-keys',
    });
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['jwt-signing-key', 'session-key']);
    // text the gateway and the inbox take as GATEWAY_JWT_SECRET / *_SESSION_KEYS (≥ 32 characters)
    for (const value of Object.values(secret.data ?? {})) {
      expect(Buffer.from(value, 'base64').toString()).toMatch(/^[A-Za-z0-9_-]{64}$/);
    }
    const leases = api.kubeConfig().makeApiClient(CoordinationV1Api);
    const lease = await leases.readNamespacedLease({
      namespace: 'portcullis-system',
      name: 'portcullis-operator',
    });
    expect(lease.spec?.holderIdentity).toBe('operator-0');
  });

  it('follows an edit', async () => {
    await patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":7}}]',
    );
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === 7,
      ),
    ).toBe(7);
  });

  it('rejects an invalid edit on the resource, with an Event, and keeps serving the last good one', async () => {
    await patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":9,"replaces":[{"name":"nobody"}]}}]',
    );
    const r = await until(
      () => rlc('messaging'),
      (x) => condition(x, 'Accepted')?.status === 'False',
    );
    expect(condition(r, 'Accepted')).toMatchObject({
      reason: 'Invalid',
      observedGeneration: 3,
      message:
        "default/messaging: descriptors[0].rate_limit.replaces[0]: replaces 'nobody', but no rate limit in domain 'messaging' has that name",
    });
    expect(condition(r, 'Ready')).toMatchObject({ status: 'True', reason: 'ServingPrevious' });
    expect(await limitOf('messaging')).toBe(7);
    await expectEvent('Warning InvalidSpec messaging');
  });

  it('lets the older resource keep a domain another one claims', async () => {
    // Creation times have one-second resolution, so in a fast run both may share a second; the tie-break
    // (namespace/name, as Gateway API resolves conflicts) then has to favour `example` too.
    await objects.createNamespacedCustomObject({
      ...G,
      body: {
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'RateLimitConfig',
        metadata: { name: 'z-copycat' },
        spec: { domain: 'example' },
      },
    });
    const r = await until(
      () => rlc('z-copycat'),
      (x) => condition(x, 'Accepted') !== undefined,
    );
    expect(condition(r, 'Accepted')).toMatchObject({
      status: 'False',
      reason: 'Conflict',
      message: "domain 'example' is already defined by default/example, which is older",
    });
    expect(condition(r, 'Ready')?.status).toBe('False');
  });

  it('carries quota_mode and metadata to the service over xDS', async () => {
    await objects.createNamespacedCustomObject({
      ...G,
      body: {
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'RateLimitConfig',
        metadata: { name: 'quota' },
        spec: {
          domain: 'quota',
          descriptors: [
            {
              key: 'svc',
              quota_mode: true,
              metadata: { service: 'a', tier: { name: 'gold', rank: 1 } },
              rate_limit: { unit: 'hour', requests_per_unit: 5 },
            },
          ],
        },
      },
    });
    const rlconfig = await until(
      async () => (await fetch(`http://127.0.0.1:${ratelimit.ports.debug}/rlconfig`)).text(),
      (t) => t.includes('quota.svc:'),
    );
    expect(rlconfig).toContain(
      'quota.svc: unit=HOUR requests_per_unit=5, shadow_mode: false, quota_mode: true\n',
    );
    const r = await fetch(`http://127.0.0.1:${ratelimit.ports.http}/json`, {
      method: 'POST',
      body: JSON.stringify({ domain: 'quota', descriptors: [{ entries: [{ key: 'svc', value: 'x' }] }] }),
    });
    expect(
      ((await r.json()) as { dynamicMetadata?: { metadata?: unknown } }).dynamicMetadata?.metadata,
    ).toEqual({
      service: 'a',
      tier: { name: 'gold', rank: 1 },
    });
  });

  it('refuses value_to_metric and share_threshold, which xDS cannot carry, with a condition and an Event', async () => {
    await objects.createNamespacedCustomObject({
      ...G,
      body: {
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'RateLimitConfig',
        metadata: { name: 'yaml-only' },
        spec: {
          domain: 'yaml-only',
          descriptors: [
            {
              key: 'files',
              value: 'files/*',
              share_threshold: true,
              value_to_metric: true,
              rate_limit: { unit: 'hour', requests_per_unit: 5 },
            },
          ],
        },
      },
    });
    const r = await until(
      () => rlc('yaml-only'),
      (x) => condition(x, 'Accepted') !== undefined,
    );
    // the schema lists the fields, so the API server kept them for the operator to see
    expect((r as unknown as { spec: { descriptors: unknown[] } }).spec.descriptors[0]).toMatchObject({
      share_threshold: true,
      value_to_metric: true,
    });
    expect(condition(r, 'Accepted')).toMatchObject({
      status: 'False',
      reason: 'NotSupportedOverXds',
      message: [
        "default/yaml-only: descriptors[0].share_threshold: not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only",
        "default/yaml-only: descriptors[0].value_to_metric: not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only",
      ].join('\n'),
    });
    expect(condition(r, 'Ready')).toMatchObject({ status: 'False', reason: 'NotServed' });
    await expectEvent('Warning NotSupportedOverXds yaml-only');
    expect(await limitOf('yaml-only')).toBeUndefined();
  });

  it('rejects what the CRD schema forbids at the API server', async () => {
    const err = await patchDescriptors(
      'example',
      '[{"key":"k","rate_limit":{"unlimited":true,"unit":"second"}}]',
    ).catch((e: unknown) => e as { stderr: string });
    expect((err as { stderr: string }).stderr).toContain('unlimited excludes unit');
  });

  it('refuses rate_limits, algorithm and burst (YAML only) with NotSupportedOverXds and a Warning Event', async () => {
    await objects.createNamespacedCustomObject({
      ...G,
      body: {
        apiVersion: 'portcullis.dev/v1alpha1',
        kind: 'RateLimitConfig',
        metadata: { name: 'yaml-only-limits' },
        spec: {
          domain: 'yaml-only-limits',
          descriptors: [
            { key: 'to_number', rate_limit: { unit: 'second', requests_per_unit: 5, burst: 10 } },
            {
              key: 'user',
              rate_limits: [
                { unit: 'second', requests_per_unit: 1, algorithm: 'sliding_window' },
                { unit: 'hour', requests_per_unit: 100 },
              ],
            },
          ],
        },
      },
    });
    const r = await until(
      () => rlc('yaml-only-limits'),
      (x) => condition(x, 'Accepted') !== undefined,
    );
    const why =
      "not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only";
    expect(condition(r, 'Accepted')).toMatchObject({
      status: 'False',
      reason: 'NotSupportedOverXds',
      observedGeneration: 1,
      message: [
        `default/yaml-only-limits: descriptors[0].rate_limit.burst: ${why}`,
        `default/yaml-only-limits: descriptors[1].rate_limits: ${why}`,
        `default/yaml-only-limits: descriptors[1].rate_limits[0].algorithm: ${why}`,
      ].join('\n'),
    });
    expect(condition(r, 'Ready')?.status).toBe('False');
    // the API server kept the fields (the CRD schema lists them), so the refusal can name them
    expect(JSON.stringify((r as unknown as { spec: unknown }).spec)).toContain('"burst":10');
    expect(await limitOf('yaml-only-limits')).toBeUndefined();
    await expectEvent('Warning NotSupportedOverXds yaml-only-limits');
    await kubectl('delete', 'rlc', 'yaml-only-limits');
  });

  it('keeps serving through an abrupt watch drop and a compacted history', async () => {
    api.hooks.dropWatches('abrupt');
    await patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":11}}]',
    );
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === 11,
      ),
    ).toBe(11);
    api.hooks.compactHistory();
    api.hooks.dropWatches('graceful');
    await patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":12}}]',
    );
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === 12,
      ),
    ).toBe(12);
  });

  it('survives an operator restart: the service keeps serving, then resyncs', async () => {
    await operator.close();
    expect(await limitOf('messaging')).toBe(12);
    await patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":13}}]',
    );
    operator = await startOperator(operatorSettings(), { log, kubeConfig: api.kubeConfig() });
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === 13,
      ),
    ).toBe(13);
  });

  it('drops a deleted domain', async () => {
    await kubectl('delete', 'rlc', 'messaging');
    expect(
      await until(
        () => limitOf('messaging'),
        (v) => v === undefined,
      ),
    ).toBeUndefined();
  });
});
