import { CoordinationV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createHmac } from 'node:crypto';
import { quietLog, waitFor, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, loadSettings as loadInboxSettings } from '@portcullis/inbox';
import {
  conditionOf as condition,
  OPERATOR_NAMESPACE,
  OperatorStack,
  WAIT_MS,
  type Rlc,
} from './operator-stack.js';

/**
 * The operator in Kubernetes mode against the real etcd + kube-apiserver, running with the chart's RBAC,
 * driven with the real kubectl, feeding a rate-limit service in xDS mode that counts in a real Redis.
 */

const G = { group: 'portcullis.dev', version: 'v1alpha1', plural: 'ratelimitconfigs', namespace: 'default' };

describe('operator with the Kubernetes API', () => {
  let stack: OperatorStack;
  let objects: CustomObjectsApi;

  /** Waits until `kubectl get events` lists `<type> <reason> <object name>`. */
  const expectEvent = async (line: string): Promise<void> => {
    const events = await waitFor(
      () =>
        stack.kubectl(
          'get',
          'events',
          '-o',
          'jsonpath={range .items[*]}{.type} {.reason} {.involvedObject.name}{"\\n"}{end}',
        ),
      (out) => out.includes(line),
      { timeoutMs: WAIT_MS },
    );
    expect(events).toContain(line);
  };
  /** The operator's status writes so far, and how many wait. */
  const statusWrites = async (): Promise<{ written: number; failed: number; pending: number }> => {
    const text = await (await fetch(`http://127.0.0.1:${stack.operator.ports.metrics}/metrics`)).text();
    const sample = (prefix: string): number =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`portcullis_operator_${prefix}`))
          ?.split(' ')
          .at(-1),
      );
    return {
      written: sample('status_writes_total{result="written"'),
      failed: sample('status_writes_total{result="failed"'),
      pending: sample('status_writes_pending{'),
    };
  };
  /** Creates a RateLimitConfig in `default` through the API, as the admin. */
  const create = (name: string, spec: unknown): Promise<unknown> =>
    objects.createNamespacedCustomObject({
      ...G,
      body: { apiVersion: 'portcullis.dev/v1alpha1', kind: 'RateLimitConfig', metadata: { name }, spec },
    });

  beforeAll(async () => {
    stack = await OperatorStack.start({ name: 'operator-kubernetes' });
    objects = stack.cp.kubeConfig().makeApiClient(CustomObjectsApi);
  }, 180_000);
  afterAll(async () => {
    await stack.close();
  }, 60_000);

  it('serves what kubectl applied and reports it Accepted and Ready, with printer columns', async () => {
    await stack.expectLimit('messaging', 100);
    const r = await stack.statusFor('messaging', (x) => condition(x, 'Ready')?.status === 'True');
    expect(r.status?.observedGeneration).toBe(1);
    expect(r.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).toEqual([
      ['Accepted', 'True', 'Accepted', 1],
      ['Ready', 'True', 'Served', 1],
    ]);
    const table = await stack.kubectl('get', 'rlc');
    expect(table).toMatch(/^NAME\s+DOMAIN\s+READY\s+AGE\n/);
    expect(table).toMatch(/^messaging\s+messaging\s+True\s+\d+s$/m);
    expect(
      await stack.kubectl(
        'get',
        'rlc',
        'messaging',
        '--subresource=status',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Accepted")].reason}',
      ),
    ).toBe('Accepted');
  });

  it('creates the keys Secret and holds the Lease as leader', async () => {
    expect(stack.operator.isLeader()).toBe(true);
    const admin = stack.cp.kubeConfig();
    const secret = await admin
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: OPERATOR_NAMESPACE, name: 'portcullis-keys' });
    const keys = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    // text the gateway and the inbox take as GATEWAY_JWT_SECRET / *_SESSION_KEYS (≥ 32 characters), and
    // INBOX_SECRETS_KEY: 32 bytes as hex, which loadSettings accepts
    expect(Object.keys(keys).sort()).toEqual(['inbox-secrets-key', 'jwt-signing-key', 'session-key']);
    expect(keys['jwt-signing-key']).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(keys['session-key']).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(keys['inbox-secrets-key']).toMatch(/^[0-9a-f]{64}$/);
    expect(() => loadInboxSettings({ INBOX_SECRETS_KEY: keys['inbox-secrets-key'] })).not.toThrow();
    const lease = await admin
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: OPERATOR_NAMESPACE, name: 'portcullis-operator' });
    expect(lease.spec?.holderIdentity).toBe('operator-0');
  });

  it('follows an edit, and writes the status of the edited resource alone', async () => {
    await waitFor(statusWrites, (w) => w.pending === 0, { timeoutMs: WAIT_MS });
    const before = await statusWrites();
    await stack.patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":7}}]',
    );
    await stack.expectLimit('messaging', 7);
    await stack.statusFor('messaging', (x) => x.status?.observedGeneration === 2);
    const after = await waitFor(statusWrites, (w) => w.pending === 0, { timeoutMs: WAIT_MS });
    expect(after.written - before.written).toBe(1);
    expect(after.failed).toBe(before.failed);
  });

  it('rejects an invalid edit on the resource, with an Event, and keeps serving the last good one', async () => {
    await stack.patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":9,"replaces":[{"name":"nobody"}]}}]',
    );
    const r = await stack.statusFor('messaging');
    expect(condition(r, 'Accepted')).toMatchObject({
      status: 'False',
      reason: 'Invalid',
      observedGeneration: 3,
      message:
        "default/messaging: descriptors[0].rate_limit.replaces[0]: replaces 'nobody', but no rate limit in domain 'messaging' has that name",
    });
    expect(condition(r, 'Ready')).toMatchObject({ status: 'True', reason: 'ServingPrevious' });
    expect(await stack.limitOf('messaging')).toBe(7);
    await expectEvent('Warning InvalidSpec messaging');
  });

  it('puts back a status edited by hand (kubectl patch --subresource=status)', async () => {
    await stack.kubectl(
      'patch',
      'rlc',
      'example',
      '--subresource=status',
      '--type',
      'merge',
      '-p',
      '{"status":{"conditions":[]}}',
    );
    const r = await stack.statusFor('example', (x) => condition(x, 'Ready')?.status === 'True');
    expect(r.status?.conditions?.map((c) => c.type)).toEqual(['Accepted', 'Ready']);
  });

  it('lets the older resource keep a domain another one claims', async () => {
    // Creation times have one-second resolution, so in a fast run both may share a second; the tie-break
    // (namespace/name, as Gateway API resolves conflicts) then has to favour `example` too.
    await create('z-copycat', { domain: 'example' });
    const r = await stack.statusFor('z-copycat');
    expect(condition(r, 'Accepted')).toMatchObject({
      status: 'False',
      reason: 'Conflict',
      message: "domain 'example' is already defined by default/example, which is older",
    });
    expect(condition(r, 'Ready')?.status).toBe('False');
  });

  it('carries quota_mode and metadata to the service over xDS', async () => {
    await create('quota', {
      domain: 'quota',
      descriptors: [
        {
          key: 'svc',
          quota_mode: true,
          metadata: { service: 'a', tier: { name: 'gold', rank: 1 } },
          rate_limit: { unit: 'hour', requests_per_unit: 5 },
        },
      ],
    });
    const rlconfig = await waitFor(
      async () => (await fetch(`http://127.0.0.1:${stack.ratelimit.ports.debug}/rlconfig`)).text(),
      (t) => t.includes('quota.svc:'),
      { timeoutMs: WAIT_MS },
    );
    expect(rlconfig).toContain(
      'quota.svc: unit=HOUR requests_per_unit=5, shadow_mode: false, quota_mode: true\n',
    );
    const r = await fetch(`http://127.0.0.1:${stack.ratelimit.ports.http}/json`, {
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
    await create('yaml-only', {
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
    });
    const r = await stack.statusFor('yaml-only');
    // the schema lists the fields, so the API server kept them for the operator to see
    expect((r.spec as { descriptors: unknown[] }).descriptors[0]).toMatchObject({
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
    expect(await stack.limitOf('yaml-only')).toBeUndefined();
  });

  it('rejects what the CRD schema forbids at the API server', async () => {
    const err = await stack
      .patchDescriptors('example', '[{"key":"k","rate_limit":{"unlimited":true,"unit":"second"}}]')
      .catch((e: unknown) => e as { stderr: string });
    expect((err as { stderr: string }).stderr).toContain('unlimited excludes unit');
  });

  it('refuses rate_limits, algorithm and burst (YAML only) with NotSupportedOverXds and a Warning Event', async () => {
    await create('yaml-only-limits', {
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
    });
    const r = await stack.statusFor('yaml-only-limits');
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
    expect(JSON.stringify(r.spec)).toContain('"burst":10');
    expect(await stack.limitOf('yaml-only-limits')).toBeUndefined();
    await expectEvent('Warning NotSupportedOverXds yaml-only-limits');
    await stack.kubectl('delete', 'rlc', 'yaml-only-limits');
  });

  it("reads an InboxEndpoint's signature secret from a Secret by name, with the chart's RBAC, and follows it", async () => {
    const admin = stack.cp.kubeConfig();
    const keys = await admin
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: OPERATOR_NAMESPACE, name: 'portcullis-keys' });
    const inbox = await startInbox(
      loadInboxSettings({
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: '0',
        INBOX_XDS_SERVER_URL: `127.0.0.1:${stack.operator.ports.xds}`,
        INBOX_SECRETS_KEY: Buffer.from(keys.data?.['inbox-secrets-key'] ?? '', 'base64').toString(),
      }),
      { log: quietLog },
    );
    const ID = 'github-hooks-6d8f0b2d4f6a8c0e';
    const SECRET_REF = { name: 'github-webhook', key: 'secret' };
    const endpoint = () =>
      objects.getNamespacedCustomObject({
        ...G,
        plural: 'inboxendpoints',
        name: 'github',
      }) as Promise<Rlc>;
    const refs = (want: string) =>
      waitFor(
        endpoint,
        (r) => r.status?.observedGeneration === 1 && condition(r, 'ResolvedRefs')?.reason === want,
        {
          timeoutMs: WAIT_MS,
        },
      );
    const body = '{"action":"opened"}';
    const check = async (secret: string) => {
      const r = await fetch(`http://127.0.0.1:${inbox.port}/api/hook/${ID}`, {
        method: 'POST',
        headers: {
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        },
        body,
      });
      const { requestId } = (await r.json()) as { requestId: string };
      return (await inbox.store.getCapture(ID, requestId))?.signature?.status ?? 'not_checked';
    };
    try {
      await stack.cp.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'portcullis.dev/v1alpha1',
          kind: 'InboxEndpoint',
          metadata: { name: 'github', namespace: 'default' },
          spec: {
            endpointId: ID,
            signature: { provider: 'github', secretRef: SECRET_REF },
          },
        }),
      });
      // no Secret yet: served unchecked, and the status says why
      const missing = await refs('SecretNotFound');
      expect(condition(missing, 'Ready')).toMatchObject({ status: 'True', reason: 'Served' });
      expect(condition(missing, 'ResolvedRefs')).toMatchObject({
        status: 'False',
        message: 'Secret default/github-webhook not found',
      });
      await waitUntil(async () => (await inbox.store.getEndpoint(ID)) !== undefined);
      expect(await check('s3cret-one')).toBe('not_checked');

      await stack.kubectl(
        'create',
        'secret',
        'generic',
        'github-webhook',
        '--from-literal=secret=s3cret-one',
      );
      expect(condition(await refs('ResolvedRefs'), 'ResolvedRefs')).toMatchObject({
        status: 'True',
        message: "Secret default/github-webhook, key 'secret', is read",
      });
      await waitUntil(async () => (await check('s3cret-one')) === 'verified');
      expect(JSON.stringify(await inbox.store.getEndpoint(ID))).not.toContain('s3cret-one');

      // a rotated secret reaches the inbox with the next read
      await stack.kubectl(
        'patch',
        'secret',
        'github-webhook',
        '-p',
        '{"stringData":{"secret":"s3cret-two"}}',
      );
      await waitUntil(async () => (await check('s3cret-two')) === 'verified');
      expect(await check('s3cret-one')).toBe('failed');

      // the secret itself can never be written in the resource
      const inline = await stack.cp
        .kubectl(['apply', '--validate=strict', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'portcullis.dev/v1alpha1',
            kind: 'InboxEndpoint',
            metadata: { name: 'github', namespace: 'default' },
            spec: { endpointId: ID, signature: { provider: 'github', secret: 'x', secretRef: SECRET_REF } },
          }),
        })
        .catch((e: unknown) => e as { stderr: string });
      expect((inline as { stderr: string }).stderr).toContain('unknown field "spec.signature.secret"');
    } finally {
      await stack.kubectl('delete', 'ibe', 'github', '--ignore-not-found');
      await stack.kubectl('delete', 'secret', 'github-webhook', '--ignore-not-found');
      await inbox.close();
    }
  });

  it('resumes its watches when kube-apiserver restarts, and serves an edit made right after', async () => {
    await stack.cp.restartApiServer();
    await stack.patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":11}}]',
    );
    await stack.expectLimit('messaging', 11);
    const r = await stack.statusFor('messaging', (x) => condition(x, 'Accepted')?.status === 'True');
    expect(condition(r, 'Ready')).toMatchObject({ status: 'True', reason: 'Served' });
  });

  it('drops a deleted domain', async () => {
    await stack.kubectl('delete', 'rlc', 'messaging');
    await stack.expectLimit('messaging', undefined);
  });
});
