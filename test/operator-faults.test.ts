import { createCollectingLog, freePort, waitFor } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '@portcullis/operator';
import {
  conditionOf as condition,
  OPERATOR_NAMESPACE,
  OperatorStack,
  operatorSettings,
  WAIT_MS,
} from './operator-stack.js';

/**
 * Faults with the real etcd + kube-apiserver: a watch that resumes after its history was compacted, an
 * operator that was down while resources changed, an operator whose RBAC is not bound yet. The watch cache
 * is off, so watches are served by etcd and a compaction reaches them (with it on, the API server would
 * answer from its own cache).
 */
describe('operator faults with the real API server', () => {
  let stack: OperatorStack;
  const { log, lines } = createCollectingLog();
  const rlcSpec = (domain: string, limit: number): string =>
    JSON.stringify({
      apiVersion: 'portcullis.dev/v1alpha1',
      kind: 'RateLimitConfig',
      metadata: { name: domain },
      spec: {
        domain,
        descriptors: [{ key: 'to_number', rate_limit: { unit: 'day', requests_per_unit: limit } }],
      },
    });
  const apply = (domain: string, limit: number): Promise<string> =>
    stack.cp.kubectl(['apply', '-f', '-'], { input: rlcSpec(domain, limit) });
  const listsOf = (kind: string): number =>
    lines.filter((l) => l['@message'] === 'listed' && l.kind === kind).length;

  beforeAll(async () => {
    stack = await OperatorStack.start({
      name: 'operator-faults',
      apiServerArgs: ['--watch-cache=false'],
      log,
    });
  }, 180_000);
  afterAll(async () => {
    await stack.close();
  }, 60_000);

  it('relists when the history its watch would resume from was compacted (410 Gone), and ends up right', async () => {
    await apply('doomed', 3);
    await stack.expectLimit('doomed', 3);
    await stack.expectLimit('messaging', 100);
    const listed = listsOf('RateLimitConfig');

    stack.apiProxy.cut();
    await stack.patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":21}}]',
    );
    await stack.kubectl('delete', 'rlc', 'doomed');
    await apply('born', 4);
    await stack.cp.compactEtcd();
    stack.apiProxy.heal();

    await stack.expectLimit('messaging', 21);
    await stack.expectLimit('doomed', undefined);
    await stack.expectLimit('born', 4);
    const r = await stack.statusFor('messaging', (x) => condition(x, 'Ready')?.status === 'True');
    expect(condition(r, 'Ready')?.reason).toBe('Served');
    await stack.statusFor('born', (x) => condition(x, 'Accepted')?.status === 'True');
    // the watch could not resume from its resourceVersion: the informer listed again
    expect(listsOf('RateLimitConfig')).toBeGreaterThan(listed);
  });

  it('a new operator serves what was edited and drops what was deleted while none ran', async () => {
    await apply('doomed-too', 5);
    await stack.expectLimit('doomed-too', 5);
    await stack.operator.close();
    await stack.patchDescriptors(
      'messaging',
      '[{"key":"to_number","rate_limit":{"unit":"day","requests_per_unit":22}}]',
    );
    await stack.kubectl('delete', 'rlc', 'doomed-too');
    // the service keeps its last config while the operator is away
    expect(await stack.limitOf('messaging')).toBe(21);
    await stack.startOperator();
    await stack.expectLimit('messaging', 22);
    await stack.expectLimit('doomed-too', undefined);
    const r = await stack.statusFor('messaging', (x) => condition(x, 'Ready')?.status === 'True');
    expect(r.status?.observedGeneration).toBe(r.metadata.generation);
  });

  it('waits for its RBAC: no xDS and not ready while the list is forbidden, then starts with the full view', async () => {
    const name = 'late-operator';
    await stack.cp.kubectl(['create', 'serviceaccount', name, '--namespace', OPERATOR_NAMESPACE]);
    const { kubeConfig } = await stack.cp.serviceAccountKubeconfig(OPERATOR_NAMESPACE, name);
    const late = createCollectingLog();
    const healthPort = await freePort();
    let started: OperatorApp | undefined;
    const starting = startOperator(
      operatorSettings({ POD_NAME: name, LEADER_ELECTION: 'false', HEALTH_PORT: String(healthPort) }),
      { log: late.log, kubeConfig },
    ).then((app) => (started = app));
    try {
      await waitFor(
        () => Promise.resolve(late.lines),
        (ls) =>
          ls.some(
            (l) =>
              l['@message'] === 'informer stopped, restarting' &&
              (l.err as { code?: number } | undefined)?.code === 403,
          ),
        { timeoutMs: WAIT_MS },
      );
      const readyz = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
      expect([readyz.status, started]).toEqual([503, undefined]);

      const sa = `${OPERATOR_NAMESPACE}:${name}`;
      await stack.cp.kubectl([
        'create',
        'clusterrolebinding',
        name,
        `--clusterrole=${stack.serviceAccount}`,
        `--serviceaccount=${sa}`,
      ]);
      await stack.cp.kubectl([
        'create',
        'rolebinding',
        name,
        '--namespace',
        OPERATOR_NAMESPACE,
        `--role=${stack.serviceAccount}-local`,
        `--serviceaccount=${sa}`,
      ]);
      const app = await starting;
      expect(app.store.get('RateLimitConfig', 'default/messaging')).toBeDefined();
      expect((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status).toBe(200);
    } finally {
      await (await starting).close();
    }
  }, 120_000);
});
