import { join } from 'node:path';
import {
  quietLog as log,
  startControlPlane,
  startRedis,
  startUpstreamRateLimit,
  waitFor,
  isDefined,
  type ControlPlane,
  type RedisServer,
  type UpstreamRateLimit,
} from '@portcullis/testing';
import type { SotwServerEvents } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '@portcullis/operator';
import { OPERATOR_NAMESPACE, operatorSettings } from './operator-stack.js';
import { applyOperatorRbac } from './operator-rbac.js';

/**
 * The upstream Envoy rate-limit service in GRPC_XDS_SOTW mode, counting in a real Redis, configured by our
 * operator from RateLimitConfigs applied with kubectl to a real kube-apiserver.
 */

const repo = join(import.meta.dirname, '..');
const NODE_ID = 'upstream-0';
const WAIT = { timeoutMs: 30_000 };

interface Decision {
  overallCode: string;
  statuses: Array<{ code: string; currentLimit?: { requestsPerUnit?: number } }>;
}
interface Condition {
  type: string;
  status: string;
  message: string;
}

function manifest(descriptors: unknown[]): string {
  return JSON.stringify({
    apiVersion: 'portcullis.dev/v1alpha1',
    kind: 'RateLimitConfig',
    metadata: { name: 'interop', namespace: 'default' },
    spec: { domain: 'interop', descriptors },
  });
}

function perHour(key: string, n: number, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { key, ...more, rate_limit: { unit: 'hour', requests_per_unit: n } };
}

describe('upstream ratelimit configured by our operator over xDS', () => {
  let cp: ControlPlane;
  let redis: RedisServer;
  let operator: OperatorApp;
  let upstream: UpstreamRateLimit;
  const nacks: Array<SotwServerEvents['nack']> = [];

  const ask = async (...descriptors: Array<Record<string, string>>): Promise<Decision> => {
    const r = await fetch(`http://127.0.0.1:${upstream.ports.http}/json`, {
      method: 'POST',
      body: JSON.stringify({
        domain: 'interop',
        descriptors: descriptors.map((d) => ({
          entries: Object.entries(d).map(([key, value]) => ({ key, value })),
        })),
      }),
    });
    return (await r.json()) as Decision;
  };
  const apply = (descriptors: unknown[]): Promise<string> =>
    cp.kubectl(['apply', '-f', '-'], { input: manifest(descriptors) });
  const accepted = async (): Promise<Condition | undefined> => {
    const out = await cp.kubectl(['get', 'rlc', 'interop', '-o', 'json']);
    const r = JSON.parse(out) as {
      metadata: { generation: number };
      status?: { conditions?: Condition[]; observedGeneration?: number };
    };
    if (r.status?.observedGeneration !== r.metadata.generation) return undefined;
    return r.status.conditions?.find((c) => c.type === 'Accepted');
  };
  /** Waits until upstream applies limit `n` to a fresh user (a fresh one each time, so no count is spent twice). */
  const untilUserLimit = (n: number): Promise<Decision> =>
    waitFor(
      async () => {
        const d = await ask({ user: `probe-${Math.random()}` });
        return d.statuses[0]?.currentLimit?.requestsPerUnit === n ? d : undefined;
      },
      isDefined,
      { ...WAIT, what: `upstream's limit for user at ${n}`, context: () => upstream.output().slice(-2000) },
    );

  beforeAll(async () => {
    cp = await startControlPlane({ crds: [join(repo, 'crds')] });
    const { kubeConfig } = await applyOperatorRbac(cp, OPERATOR_NAMESPACE);
    redis = await startRedis();
    operator = await startOperator(operatorSettings({ POD_NAME: 'operator-0', LEADER_ELECTION: 'false' }), {
      log,
      kubeConfig,
    });
    operator.xds.on('nack', (e) => nacks.push(e));
    await apply([perHour('user', 2)]);
    await operator.reconcileNow();
    upstream = await startUpstreamRateLimit({
      env: {
        REDIS_URL: redis.address,
        CONFIG_TYPE: 'GRPC_XDS_SOTW',
        CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${operator.ports.xds}`,
        CONFIG_GRPC_XDS_NODE_ID: NODE_ID,
      },
    });
  }, 180_000);
  afterAll(async () => {
    await upstream.stop();
    await operator.close();
    await redis.stop();
    await cp.close();
  });

  it('enforces what kubectl applied: OVER_LIMIT after the limit, and its node is the one it named', async () => {
    await untilUserLimit(2);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) codes.push((await ask({ user: 'ann' })).overallCode);
    expect(codes).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    expect(operator.xds.clients().map((c) => c.nodeId)).toEqual([NODE_ID]);
    expect(operator.xds.clients()[0]?.types[0]?.subscription).toBe('*');
  });

  it('follows an edit', async () => {
    await apply([perHour('user', 5)]);
    await untilUserLimit(5);
    expect((await waitFor(accepted, isDefined, { ...WAIT, what: 'Accepted' })).status).toBe('True');
  });

  it('keeps the last good config while our operator refuses an edit, and says why on the status', async () => {
    await apply([perHour('user', 7), perHour('user', 8)]);
    const condition = await waitFor(
      async () => {
        const c = await accepted();
        return c?.status === 'False' ? c : undefined;
      },
      isDefined,
      { ...WAIT, what: 'Accepted=False' },
    );
    expect(condition.message).toContain("duplicate descriptor composite key 'interop.user'");
    expect((await ask({ user: 'bob' })).statuses[0]?.currentLimit?.requestsPerUnit).toBe(5);
    expect(nacks).toEqual([]);
  });

  it('keeps the last good config when it NACKs what our operator accepts: (a_b, c) and (a, b_c)', async () => {
    // two rules for us, which compare (key, value); one composite key "a_b_c" twice for upstream
    await apply([perHour('user', 6), perHour('a_b', 1, { value: 'c' }), perHour('a', 1, { value: 'b_c' })]);
    const nack = await waitFor(() => nacks[0], isDefined, { ...WAIT, what: 'a NACK' });
    expect(nack).toMatchObject({
      nodeId: NODE_ID,
      message: "default/interop: duplicate descriptor composite key 'interop.a_b_c'",
    });
    expect((await ask({ user: 'carol' })).statuses[0]?.currentLimit?.requestsPerUnit).toBe(5);
    expect((await accepted())?.status).toBe('True');
  });

  it('is configured again by the next good edit after a NACK', async () => {
    await apply([perHour('user', 9)]);
    await untilUserLimit(9);
    expect(nacks).toHaveLength(1);
  });

  it('drops quota_mode: the proto of its pinned go-control-plane has no field 7, so a quota limit is a hard one', async () => {
    const quota = { quota_mode: true };
    await apply([perHour('user', 10), perHour('quota_user', 1, quota), perHour('quota_team', 100, quota)]);
    await untilUserLimit(10);
    const codes: string[] = [];
    for (let i = 0; i < 2; i++)
      codes.push((await ask({ quota_user: 'dan' }, { quota_team: 'x' })).overallCode);
    // ours, reading field 7, answers OK twice: only one of the two quota descriptors is over
    expect(codes).toEqual(['OK', 'OVER_LIMIT']);
    expect((await accepted())?.status).toBe('True');
  });
});
