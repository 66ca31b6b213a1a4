import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import {
  quietLog,
  startControlPlane,
  startRedis,
  startTcpProxy,
  waitFor,
  type ControlPlane,
  type RedisServer,
  type TcpProxy,
} from '@portcullis/testing';
import { startOperator, type OperatorApp, loadSettings as loadOperatorSettings } from '@portcullis/operator';
import type { RateLimitApp } from '@portcullis/ratelimit';
import { startXdsRateLimit } from '../services/ratelimit/test/xds-rate-limit.js';
import { applyOperatorRbac } from './operator-rbac.js';

export const REPO = join(import.meta.dirname, '..');
export const OPERATOR_NAMESPACE = 'portcullis-system';
/** Generous: other heavy tests share this machine, and the operator backs off after API errors. */
export const WAIT_MS = 60_000;
const RLC = {
  group: 'portcullis.dev',
  version: 'v1alpha1',
  plural: 'ratelimitconfigs',
  namespace: 'default',
};

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
}
export interface Rlc {
  metadata: { generation: number };
  spec?: unknown;
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

export function conditionOf(r: Rlc, type: string): Condition | undefined {
  return r.status?.conditions?.find((c) => c.type === type);
}

/** Operator settings for Kubernetes mode on loopback ports chosen by the system, with `env` on top. */
export function operatorSettings(env: Record<string, string> = {}): ReturnType<typeof loadOperatorSettings> {
  return loadOperatorSettings({
    OPERATOR_SOURCE: 'kubernetes',
    OPERATOR_NAMESPACE,
    XDS_HOST: '127.0.0.1',
    XDS_PORT: '0',
    HEALTH_PORT: '0',
    METRICS_PORT: '0',
    ...env,
  });
}

/** The same identity pointed at another address (a proxy in front of the API server). */
function throughPort(kc: KubeConfig, port: number): KubeConfig {
  const moved = new KubeConfig();
  moved.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${port}` })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return moved;
}

export interface OperatorStackOptions {
  /** The test file, for the start-up report. */
  name: string;
  /** More kube-apiserver flags. */
  apiServerArgs?: readonly string[];
  /** The operator's log (quiet by default). */
  log?: Logger;
}

/**
 * The operator in Kubernetes mode on the real control plane (the repository's CRDs), running as the chart's
 * ServiceAccount and reaching the API server through a proxy a test can cut, feeding a rate-limit service
 * in xDS mode that counts in a real Redis. `kubectl` runs as the admin, straight to the API server.
 */
export class OperatorStack {
  operator!: OperatorApp;
  ratelimit!: RateLimitApp;
  private redis!: RedisServer;
  /** The chart's ServiceAccount for the operator, and its Role and ClusterRole (same name, `-local` for the Role). */
  serviceAccount = '';
  private operatorKubeConfig!: KubeConfig;
  /** Kept across operator restarts, so the service reconnects where it was. */
  private xdsPort = 0;

  private constructor(
    readonly cp: ControlPlane,
    /** Between the operator and the API server only. */
    readonly apiProxy: TcpProxy,
    private readonly log: Logger,
  ) {}

  static async start(o: OperatorStackOptions): Promise<OperatorStack> {
    const cp = await startControlPlane({
      crds: [join(REPO, 'crds')],
      ...(o.apiServerArgs ? { apiServerArgs: o.apiServerArgs } : {}),
    });
    const proxy = await startTcpProxy(Number(new URL(cp.url).port));
    const stack = new OperatorStack(cp, proxy, o.log ?? quietLog);
    const { kubeConfig, serviceAccount } = await applyOperatorRbac(cp, OPERATOR_NAMESPACE);
    stack.serviceAccount = serviceAccount;
    stack.operatorKubeConfig = throughPort(kubeConfig, proxy.port);
    stack.redis = await startRedis();
    await stack.startOperator();
    await stack.kubectl('apply', '-f', join(REPO, 'examples/resources/'));
    stack.ratelimit = await startXdsRateLimit(`127.0.0.1:${stack.xdsPort}`, {
      env: {
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: stack.redis.address,
        CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-0',
        RESPONSE_DYNAMIC_METADATA: 'true',
      },
    });
    return stack;
  }

  /** Starts an operator (again, on the same xDS port after the first) as the chart's ServiceAccount. */
  async startOperator(): Promise<OperatorApp> {
    this.operator = await startOperator(
      operatorSettings({
        POD_NAME: 'operator-0',
        XDS_PORT: String(this.xdsPort),
        LEADER_ELECTION_LEASE_DURATION: '2s',
        LEADER_ELECTION_RENEW_DEADLINE: '1500ms',
        LEADER_ELECTION_RETRY_PERIOD: '200ms',
        OPERATOR_SECRET_REFRESH: '200ms',
      }),
      { log: this.log, kubeConfig: this.operatorKubeConfig },
    );
    this.xdsPort = this.operator.ports.xds;
    return this.operator;
  }

  /** The real kubectl as the admin (namespace `default`). */
  kubectl(...args: string[]): Promise<string> {
    return this.cp.kubectl(args);
  }

  /** `kubectl patch` replacing the descriptors of a RateLimitConfig (a merge patch replaces lists whole). */
  patchDescriptors(name: string, descriptorsJson: string): Promise<string> {
    return this.kubectl(
      'patch',
      'rlc',
      name,
      '--type',
      'merge',
      '-p',
      `{"spec":{"descriptors":${descriptorsJson}}}`,
    );
  }

  /** The limit the rate-limit service applies to `to_number` in `domain`, or undefined if it has none. */
  async limitOf(domain: string): Promise<number | undefined> {
    const r = await fetch(`http://127.0.0.1:${this.ratelimit.ports.http}/json`, {
      method: 'POST',
      body: JSON.stringify({
        domain,
        descriptors: [{ entries: [{ key: 'to_number', value: String(Math.random()) }] }],
      }),
    });
    const body = (await r.json()) as { statuses: Array<{ currentLimit?: { requestsPerUnit: number } }> };
    return body.statuses[0]?.currentLimit?.requestsPerUnit;
  }

  /** Waits until the service applies `limit` to `domain` (undefined: until it knows no such domain). */
  async expectLimit(domain: string, limit: number | undefined): Promise<void> {
    await waitFor(
      () => this.limitOf(domain),
      (v) => v === limit,
      { timeoutMs: WAIT_MS },
    );
  }

  /** A RateLimitConfig in `default`, read as the admin. */
  async rlc(name: string): Promise<Rlc> {
    const objects = this.cp.kubeConfig().makeApiClient(CustomObjectsApi);
    return (await objects.getNamespacedCustomObject({ ...RLC, name })) as Rlc;
  }

  /** Waits until the operator has written a status for the resource's current generation, and returns it. */
  statusFor(name: string, ok: (r: Rlc) => boolean = () => true): Promise<Rlc> {
    return waitFor(
      () => this.rlc(name),
      (r) => r.status?.observedGeneration === r.metadata.generation && ok(r),
      { timeoutMs: WAIT_MS },
    );
  }

  async close(): Promise<void> {
    await this.ratelimit.close();
    await this.operator.close();
    await this.redis.stop();
    await this.apiProxy.close();
    await this.cp.close();
  }
}
