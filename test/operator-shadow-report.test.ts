import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { ShadowReport } from '@portcullis/config';
import {
  quietLog as log,
  freePort,
  startControlPlane,
  waitFor,
  waitUntil,
  type ControlPlane,
} from '@portcullis/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '@portcullis/operator';
import type { RateLimitApp } from '@portcullis/ratelimit';
import { sampleSum, scrapeMetrics } from '../bench/operator/operator-metrics.js';
import { startXdsRateLimit } from '../services/ratelimit/test/xds-rate-limit.js';
import { applyOperatorRbac } from './operator-rbac.js';
import { OPERATOR_NAMESPACE, operatorSettings, REPO, WAIT_MS } from './operator-stack.js';

const SERVICE = 'portcullis-ratelimit';

/**
 * EndpointSlices refuse loopback addresses, so the instances' debug ports listen on this machine's own
 * IPv4 address, as a Pod's would on its IP.
 */
function hostAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
  if (!address)
    throw new Error('this test needs a non-loopback IPv4 address (EndpointSlices refuse loopback)');
  return address;
}

const WEB = {
  apiVersion: 'portcullis.dev/v1alpha1',
  kind: 'RateLimitConfig',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    domain: 'shadow-web',
    descriptors: [
      // per day, so no window boundary passes during the test
      { key: 'path', value: '/login', shadow_mode: true, rate_limit: { unit: 'day', requests_per_unit: 2 } },
      { key: 'path', value: '/api', rate_limit: { unit: 'day', requests_per_unit: 100 } },
    ],
  },
};
const OTHER = {
  ...WEB,
  metadata: { name: 'other', namespace: 'default' },
  spec: {
    domain: 'shadow-other',
    descriptors: [{ key: 'path', rate_limit: { unit: 'day', requests_per_unit: 1 } }],
  },
};

interface ReportedRlc {
  metadata: { resourceVersion: string };
  status?: { shadowReport?: ShadowReport };
}

describe('operator: shadow-mode report in RateLimitConfig status, from the ratelimit instances', () => {
  let cp: ControlPlane;
  let operator: OperatorApp;
  let operatorKubeConfig: KubeConfig;
  const instances = new Map<string, RateLimitApp>();
  let ip = '';
  let serviceUid = '';

  /** A rate-limit instance in xDS mode from the operator, memory backend, its debug port on `ip`. */
  const startInstance = async (name: string): Promise<RateLimitApp> => {
    const app = await startXdsRateLimit(`127.0.0.1:${operator.ports.xds}`, {
      env: { CONFIG_GRPC_XDS_NODE_ID: name, DEBUG_HOST: ip, USE_STATSD: 'false' },
      log,
    });
    instances.set(name, app);
    return app;
  };

  /** One EndpointSlice per instance (its own debug port), as the EndpointSlice controller writes one per port set. */
  const applySlice = (name: string, debugPort: number): Promise<string> =>
    cp.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${SERVICE}-${name}`,
          namespace: OPERATOR_NAMESPACE,
          labels: {
            'kubernetes.io/service-name': SERVICE,
            'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
          },
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Service', name: SERVICE, uid: serviceUid, controller: true },
          ],
        },
        addressType: 'IPv4',
        ports: [
          { name: 'grpc', port: 8081, protocol: 'TCP', appProtocol: 'grpc' },
          { name: 'debug', port: debugPort, protocol: 'TCP' },
        ],
        endpoints: [
          {
            addresses: [ip],
            conditions: { ready: true, serving: true, terminating: false },
            targetRef: { kind: 'Pod', namespace: OPERATOR_NAMESPACE, name: `${SERVICE}-${name}` },
          },
        ],
      }),
    });

  /** `hits` requests for `path` in `domain` to one instance, over `/json`. */
  const send = async (app: RateLimitApp, domain: string, path: string, hits: number): Promise<void> => {
    for (let i = 0; i < hits; i++) {
      const r = await fetch(`http://127.0.0.1:${app.ports.http}/json`, {
        method: 'POST',
        body: JSON.stringify({ domain, descriptors: [{ entries: [{ key: 'path', value: path }] }] }),
      });
      // shadow mode lets every request through
      expect(r.status).toBe(200);
    }
  };

  /** Waits until the instance serves `domain`: its `/rlconfig` lists the domain's rules. */
  const expectServed = (app: RateLimitApp, domain: string): Promise<unknown> =>
    waitFor(
      async () => (await fetch(`http://${ip}:${app.ports.debug}/rlconfig`)).text(),
      (text) => text.includes(`${domain}.`),
      { timeoutMs: WAIT_MS },
    );
  const instance = (name: string): RateLimitApp => {
    const app = instances.get(name);
    if (!app) throw new Error(`no instance ${name}`);
    return app;
  };

  /** An operator replica contending for the Lease, with short lease timings and a fast report. */
  const startReplica = (name: string): Promise<OperatorApp> =>
    startOperator(
      operatorSettings({
        POD_NAME: name,
        LEADER_ELECTION_LEASE_DURATION: '2s',
        LEADER_ELECTION_RENEW_DEADLINE: '1500ms',
        LEADER_ELECTION_RETRY_PERIOD: '200ms',
        OPERATOR_SHADOW_REPORT_INTERVAL: '300ms',
        OPERATOR_SHADOW_REPORT_WINDOW: '10m',
      }),
      { log, kubeConfig: operatorKubeConfig },
    );

  const rlc = async (name: string): Promise<ReportedRlc> =>
    JSON.parse(await cp.kubectl(['get', 'rlc', name, '--namespace', 'default', '-o', 'json'])) as ReportedRlc;

  /** Waits until the report of `name` (read through the API, as `kubectl get rlc -o json`) passes `ok`. */
  const reportOf = async (name: string, ok: (r: ShadowReport) => boolean): Promise<ShadowReport> => {
    const r = await waitFor(
      () => rlc(name),
      (x) => x.status?.shadowReport !== undefined && ok(x.status.shadowReport),
      { timeoutMs: WAIT_MS },
    );
    return r.status?.shadowReport as ShadowReport;
  };
  const ruleOf = (report: ShadowReport, key: string) => report.rules.find((r) => r.key === key);
  const operatorMetrics = (): Promise<string> =>
    scrapeMetrics(`http://127.0.0.1:${operator.ports.metrics}/metrics`);
  const okScrapes = (text: string): number =>
    sampleSum(text, 'portcullis_operator_shadow_report_scrapes_total', 'result="ok"');
  /** Waits for several more rounds of the leading operator's report. */
  const someRounds = async (): Promise<void> => {
    const scrapes = okScrapes(await operatorMetrics());
    await waitFor(operatorMetrics, (text) => okScrapes(text) >= scrapes + 6, { timeoutMs: WAIT_MS });
  };

  beforeAll(async () => {
    ip = hostAddress();
    cp = await startControlPlane({ crds: [join(REPO, 'crds')] });
    operatorKubeConfig = (await applyOperatorRbac(cp, OPERATOR_NAMESPACE)).kubeConfig;
    serviceUid = await cp.kubectl(
      ['apply', '--namespace', OPERATOR_NAMESPACE, '-o', 'jsonpath={.metadata.uid}', '-f', '-'],
      {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: SERVICE },
          spec: {
            ports: [
              { name: 'grpc', port: 8081, targetPort: 'grpc', appProtocol: 'grpc' },
              { name: 'debug', port: 6070, targetPort: 'debug' },
            ],
          },
        }),
      },
    );
    await cp.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [WEB, OTHER] }),
    });
    operator = await startReplica('operator-0');
    const a = await startInstance('a');
    const b = await startInstance('b');
    await applySlice('a', a.ports.debug);
    await applySlice('b', b.ports.debug);
    // a ready endpoint where nothing listens: its scrapes fail, the others' reports go on
    await applySlice('gone', await freePort());
    await Promise.all(
      [a, b].flatMap((app) => [expectServed(app, WEB.spec.domain), expectServed(app, OTHER.spec.domain)]),
    );
  }, 180_000);
  afterAll(async () => {
    for (const app of instances.values()) await app.close();
    await operator.close();
    await cp.close();
  }, 60_000);

  it('sums the hits of every instance per rule, the shadow-mode rule over its limit, into the status', async () => {
    const [a, b] = [instance('a'), instance('b')];
    await send(a, WEB.spec.domain, '/login', 5);
    await send(a, WEB.spec.domain, '/api', 3);
    await send(b, WEB.spec.domain, '/login', 4);
    await send(b, OTHER.spec.domain, 'x', 1);
    // a: 5 hits on a limit of 2 (2 within, 3 over, 1 near); b: 4 hits (2 within, 2 over, 1 near)
    const report = await reportOf(
      'web',
      (r) => ruleOf(r, 'path_/login')?.totalHits === 9 && ruleOf(r, 'path_/api')?.totalHits === 3,
    );
    expect(report.rules).toEqual([
      {
        key: 'path_/login',
        shadowMode: true,
        totalHits: 9,
        overLimit: 5,
        nearLimit: 2,
        withinLimit: 4,
        shadowModeHits: 5,
      },
      {
        key: 'path_/api',
        shadowMode: false,
        totalHits: 3,
        overLimit: 0,
        nearLimit: 0,
        withinLimit: 3,
        shadowModeHits: 0,
      },
    ]);
    expect(report).toMatchObject({ windowSeconds: 600, shadowModeHits: 5, truncated: 0 });
    expect(Date.parse(report.collectedAt)).toBeGreaterThanOrEqual(Date.parse(report.from));
    // each resource gets its own domain's rules only
    const other = await reportOf('other', (r) => ruleOf(r, 'path')?.totalHits === 1);
    expect(other.rules).toEqual([
      {
        key: 'path',
        shadowMode: false,
        totalHits: 1,
        overLimit: 0,
        nearLimit: 1,
        withinLimit: 1,
        shadowModeHits: 0,
      },
    ]);
    expect(other.shadowModeHits).toBe(0);
  });

  it('shows the shadow-mode hits as a wide printer column', async () => {
    const table = await cp.kubectl(['get', 'rlc', 'web', '--namespace', 'default', '-o', 'wide']);
    const [head, row] = table.trim().split('\n');
    expect(head?.split(/\s+/)).toEqual(['NAME', 'DOMAIN', 'SHADOW-HITS', 'READY', 'AGE']);
    expect(row?.split(/\s+/).slice(0, 3)).toEqual(['web', 'shadow-web', '5']);
  });

  it('counts scrape failures in a metric, and does not write a report again while nothing changes', async () => {
    const before = await operatorMetrics();
    expect(
      sampleSum(before, 'portcullis_operator_shadow_report_scrapes_total', 'result="unreachable"'),
    ).toBeGreaterThan(0);
    const version = (await rlc('web')).metadata.resourceVersion;
    await someRounds();
    expect((await rlc('web')).metadata.resourceVersion).toBe(version);
  });

  it('keeps the hits of an instance that went away, and counts a new instance from its start', async () => {
    await instances.get('b')?.close();
    instances.delete('b');
    await cp.kubectl(['delete', 'endpointslice', `${SERVICE}-b`, '--namespace', OPERATOR_NAMESPACE]);
    const c = await startInstance('c');
    await expectServed(c, WEB.spec.domain);
    await send(c, WEB.spec.domain, '/login', 4);
    // hits before the first scrape of c count too: it started within the window
    await applySlice('c', c.ports.debug);
    const report = await reportOf('web', (r) => ruleOf(r, 'path_/login')?.totalHits === 13);
    expect(ruleOf(report, 'path_/login')).toEqual({
      key: 'path_/login',
      shadowMode: true,
      totalHits: 13,
      overLimit: 7,
      nearLimit: 3,
      withinLimit: 6,
      shadowModeHits: 7,
    });
    expect(report.shadowModeHits).toBe(7);
  });

  it("carries the leader's report over to the next leader, and adds the new leader's hits on top", async () => {
    const standby = await startReplica('operator-1');
    expect(standby.isLeader()).toBe(false);
    const earlier = await reportOf('web', (r) => ruleOf(r, 'path_/login')?.totalHits === 13);
    // the last report a few seconds back, so that the seconds no leader counts show in the next one
    await waitUntil(() => Date.now() >= Date.parse(earlier.collectedAt) + 3000, WAIT_MS);
    const version = (await rlc('web')).metadata.resourceVersion;
    await operator.close();
    operator = standby;
    await waitUntil(() => standby.isLeader(), WAIT_MS);
    // the new leader's rounds: the report it carried says nothing new, so it is not written again (b's 4
    // hits are only in it: b is gone, and a and c started before it, so their first scrape is a baseline)
    await someRounds();
    expect((await rlc('web')).metadata.resourceVersion).toBe(version);
    await send(instance('a'), WEB.spec.domain, '/login', 10);
    // the new leader's report: the earlier 13 hits and its own 10 (without the carried ones it would be 19)
    const report = await reportOf('web', (r) => ruleOf(r, 'path_/login')?.totalHits === 23);
    expect(ruleOf(report, 'path_/login')).toEqual({
      key: 'path_/login',
      shadowMode: true,
      totalHits: 23,
      overLimit: 17,
      nearLimit: 3,
      withinLimit: 6,
      shadowModeHits: 17,
    });
    expect(ruleOf(report, 'path_/api')?.totalHits).toBe(3);
    expect(report).toMatchObject({ domain: WEB.spec.domain, from: earlier.from, shadowModeHits: 17 });
    expect(report.uncountedSeconds).toBeGreaterThanOrEqual(3);
  });
});
