import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createXdsSubscription, type XdsSubscription } from '@portcullis/xds';
import {
  quietLog as log,
  startPrometheus,
  startRedis,
  waitUntil,
  type PrometheusServer,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startGateway, type GatewayApp, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import { startInbox, type InboxApp, loadSettings as loadInboxSettings, startWorker } from '@portcullis/inbox';
import { RATE_LIMIT_CONFIG_TYPE } from '@portcullis/ratelimit';
import { helmPath } from '../hack/helm.js';
import { startDirectoryPlatform } from './directory-platform.js';

// The chart's dashboards and alerts against the metrics the services really export: the chart rendered by
// Helm (release and namespace `portcullis`, as a ServiceMonitor would label the series), the rules checked by
// promtool, every service started on Redis with the operator in directory mode, a little traffic (an
// over-limit, a forward, a rejected resource, a NACK), and a real Prometheus scraping them every second.
// Every panel query, dashboard variable and alert expression is then evaluated through its HTTP API.

const run = promisify(execFile);
const repo = join(import.meta.dirname, '..');
const RELEASE = 'portcullis';
/** What Grafana substitutes in the panels' queries: every domain, and a window of many scrapes. */
const GRAFANA_VARIABLES: Readonly<Record<string, string>> = { domain: '.*', __rate_interval: '1m' };
/** An alert expression's threshold, compared last at its top level (each of the chart's alerts ends so). */
const THRESHOLD = /^(?<inner>.*\S)\s*(?:==|!=|>=|<=|>|<)\s*-?\d+(?:\.\d+)?$/s;
const ENDPOINT_ID = 'payments-hooks-4f9c2a7d1e8b';

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { groups: Array<{ name: string; rules: Array<{ alert: string; expr: string }> }> };
}
interface GrafanaDashboard {
  title: string;
  templating: { list: Array<{ name: string; type: string; query?: string }> };
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
}

async function renderChart(): Promise<Manifest[]> {
  const { stdout } = await run(
    helmPath(),
    ['template', RELEASE, join(repo, 'charts/portcullis'), '--namespace', RELEASE]
      .concat(['--set', 'metrics.dashboards.enabled=true', '--set', 'metrics.prometheusRule.enabled=true'])
      .concat(['--show-only', 'templates/dashboards.yaml', '--show-only', 'templates/prometheusrule.yaml']),
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** `$name` and `${name}` replaced as Grafana does before sending a query. */
function substitute(expr: string): string {
  return expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => GRAFANA_VARIABLES[name] ?? whole);
}

/** Grafana's `label_values(metric, label)` as the PromQL query whose series give the values. */
function variableQuery(query: string): string {
  const m = /^label_values\((?<metric>.+),\s*(?<label>\w+)\)$/.exec(query);
  if (!m?.groups) throw new Error(`unknown variable query ${query}`);
  return `group by (${m.groups.label}) (${m.groups.metric})`;
}

/** The expressions among `named` that Prometheus refuses or answers without any series: `name: why`. */
async function withoutSeries(
  prometheus: PrometheusServer,
  named: ReadonlyArray<readonly [name: string, expr: string]>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, expr] of named) {
    const answer = await prometheus.query(expr);
    if (!answer.ok) problems.push(`${name}: ${answer.error}`);
    else if (answer.series.length === 0) problems.push(`${name}: no series for ${expr}`);
  }
  return problems;
}

describe('the chart dashboards and alerts against a real Prometheus scraping the services', () => {
  let dir: string;
  let redis: RedisServer;
  let target: Server;
  let gateway: GatewayApp;
  let inbox: InboxApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let refuser: XdsSubscription;
  let prometheus: PrometheusServer;
  let dashboards: GrafanaDashboard[];
  let ruleSpec: Manifest['spec'];
  let alerts: Array<{ alert: string; expr: string }>;
  let forwarded = 0;
  /** What beforeAll started, closed in reverse order by afterAll. */
  const started: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    const rendered = await renderChart();
    dashboards = rendered
      .filter((m) => m.kind === 'ConfigMap')
      .flatMap((m) => Object.values(m.data ?? {}).map((json) => JSON.parse(json) as GrafanaDashboard));
    ruleSpec = rendered.find((m) => m.kind === 'PrometheusRule')?.spec;
    alerts = ruleSpec?.groups.flatMap((g) => g.rules) ?? [];

    redis = await startRedis();
    started.push(() => redis.stop());
    const redisUrl = `redis://${redis.address}`;
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        forwarded++;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    started.push(() => new Promise<void>((resolve) => target.close(() => resolve())));
    const targetPort = (target.address() as AddressInfo).port;

    // the example InboxEndpoint (its target moved here), a rate-limited route, and a resource the operator rejects
    dir = await mkdtemp(join(tmpdir(), 'dashboards-'));
    started.push(() => rm(dir, { recursive: true, force: true }));
    const example = await readFile(join(repo, 'examples/resources/inbox-endpoint.yaml'), 'utf8');
    await writeFile(
      join(dir, 'inbox-endpoint.yaml'),
      example.replace('http://127.0.0.1:3000/', `http://127.0.0.1:${targetPort}/`),
    );
    await copyFile(join(repo, 'examples/resources/ratelimit-example.yaml'), join(dir, 'ratelimit.yaml'));
    await writeFile(
      join(dir, 'ping.yaml'),
      `apiVersion: portcullis.dev/v1alpha1
kind: ApiRoute
metadata: {name: ping, namespace: default}
spec:
  prefix: v1
  routes:
    - {name: ping, method: GET, path: ping, auth: false, handler: Example.ping,
       rateLimit: {requestsPerUnit: 2, unit: minute, descriptors: [{key: client, from: remoteAddress}]}}
`,
    );
    await writeFile(
      join(dir, 'rejected.yaml'),
      `apiVersion: portcullis.dev/v1alpha1
kind: RateLimitConfig
metadata: {name: rejected, namespace: default}
spec:
  domain: rejected
  descriptors: [{key: user, rate_limit: {unit: fortnight, requests_per_unit: 1}}]
`,
    );

    const platform = await startDirectoryPlatform(dir, {
      rateLimitEnv: { BACKEND_TYPE: 'redis', REDIS_URL: redis.address },
    });
    started.push(() => platform.close());
    const { operator, ratelimit, xds } = platform;
    gateway = await startGateway(
      loadGatewaySettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GATEWAY_STATE_DIR: dir,
        GATEWAY_REDIS_URL: redisUrl,
        GATEWAY_XDS_SERVER_URL: xds,
        GATEWAY_XDS_RETRY_INTERVAL: '100ms',
        GATEWAY_RATELIMIT_URL: platform.grpc,
      }),
      { log },
    );
    started.push(() => gateway.close());
    const inboxEnv = {
      REDIS_URL: redisUrl,
      INBOX_HOST: '127.0.0.1',
      INBOX_XDS_SERVER_URL: xds,
      INBOX_XDS_RETRY_INTERVAL: '100ms',
      INBOX_EGRESS_ALLOW_PRIVATE: 'true',
      INBOX_WORKER_POLL_INTERVAL: '100ms',
    };
    inbox = await startInbox(loadInboxSettings({ ...inboxEnv, INBOX_PORT: '0' }), { log });
    started.push(() => inbox.close());
    worker = await startWorker(loadInboxSettings({ ...inboxEnv, INBOX_WORKER_PORT: '0' }), { log });
    started.push(() => worker.close());
    // a client that refuses every rate-limit configuration: the operator counts its NACKs
    refuser = createXdsSubscription({
      serverUrl: xds,
      nodeId: 'refuser',
      typeUrl: RATE_LIMIT_CONFIG_TYPE,
      retryIntervalMs: 100,
      log,
      decode: () => {
        throw new Error('refused by the test');
      },
      apply: () => undefined,
    });
    refuser.start();
    started.push(() => refuser.close());

    const jobs = (
      [
        ['operator', operator.ports.metrics],
        ['ratelimit', ratelimit.ports.debug],
        ['gateway', gateway.port],
        ['inbox', inbox.port],
        ['inbox-worker', worker.port],
      ] as const
    ).map(([component, port]) => ({
      // the Service names of the chart, which ServiceMonitors make the job label
      job: `${RELEASE}-${component}`,
      targets: [`127.0.0.1:${port}`],
      labels: { namespace: RELEASE },
    }));
    prometheus = await startPrometheus({ jobs, scrapeIntervalMs: 1000 });
    started.push(() => prometheus.stop());

    const gatewayUrl = `http://127.0.0.1:${gateway.port}/api/v1/ping`;
    // 2 a minute: the third is refused once the rate-limit service has the route's rule (it fails open before)
    await waitUntil(async () => (await fetch(gatewayUrl)).status === 429, 10_000);
    const captureUrl = `http://127.0.0.1:${inbox.port}/api/hook/${ENDPOINT_ID}`;
    await waitUntil(async () => {
      const r = await fetch(captureUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":1}',
      });
      return r.status === 200;
    }, 10_000);
    await waitUntil(() => forwarded > 0, 10_000);
  }, 60_000);

  afterAll(async () => {
    for (const close of started.reverse()) await close();
  });

  it('ships rules that promtool check rules accepts', async () => {
    expect(alerts.map((a) => a.alert)).toEqual([
      'PortcullisRateLimitBackendErrors',
      'PortcullisRedisConnectionErrors',
      'PortcullisXdsNacks',
      'PortcullisResourcesRejected',
      'PortcullisForwardingDeadLetters',
      'PortcullisComponentDown',
    ]);
    const rules = join(dir, 'rules.json');
    // promtool reads YAML, and JSON is YAML: the PrometheusRule's spec is a rule file as it stands
    await writeFile(rules, JSON.stringify(ruleSpec));
    const { stdout } = await run('promtool', ['check', 'rules', rules]);
    expect(stdout).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('answers every dashboard panel query and variable with series', async () => {
    expect(dashboards.map((d) => d.title).sort()).toEqual([
      'Portcullis / Gateway',
      'Portcullis / Inbox',
      'Portcullis / Operator',
      'Portcullis / Overview',
      'Portcullis / Rate limit',
    ]);
    const queries = dashboards.flatMap((d) => [
      ...d.panels.flatMap((p) =>
        p.targets.map((t, i) => [`${d.title} / ${p.title} #${i + 1}`, substitute(t.expr)] as const),
      ),
      ...d.templating.list
        .filter((v) => v.type === 'query' && v.query !== undefined)
        .map((v) => [`${d.title} / $${v.name}`, variableQuery(v.query ?? '')] as const),
    ]);
    expect(queries.length).toBeGreaterThan(40);
    // series appear as the scrapes after the traffic come in: wait for them, then name what is missing
    await waitUntil(async () => (await withoutSeries(prometheus, queries)).length === 0, 20_000).catch(
      () => undefined,
    );
    expect(await withoutSeries(prometheus, queries)).toEqual([]);
  }, 30_000);

  it('parses every alert expression, and its metrics return series', async () => {
    // An alert's whole expression answers series only while it fires, so it is checked to parse, and the
    // expression without its final threshold (e.g. `rate(x[5m])` of `rate(x[5m]) > 0`, `up{…}` of
    // `up{…} == 0`) is checked to return series: the metrics it names are exported.
    const inner = alerts.map((a) => {
      const m = THRESHOLD.exec(a.expr);
      if (!m?.groups?.inner) throw new Error(`${a.alert}: no threshold at the end of ${a.expr}`);
      return [a.alert, m.groups.inner] as const;
    });
    for (const a of alerts) expect([a.alert, (await prometheus.query(a.expr)).ok]).toEqual([a.alert, true]);
    await waitUntil(async () => (await withoutSeries(prometheus, inner)).length === 0, 20_000).catch(
      () => undefined,
    );
    expect(await withoutSeries(prometheus, inner)).toEqual([]);
  }, 30_000);

  it('tells a panel naming a metric the services do not export, and a query that does not parse', async () => {
    const misspelled = substitute(
      dashboards
        .flatMap((d) => d.panels.flatMap((p) => p.targets.map((t) => t.expr)))
        .find((e) => e.includes('portcullis_gateway_requests_total')) ?? '',
    ).replaceAll('portcullis_gateway_requests_total', 'portcullis_gateway_request_total');
    expect(misspelled).toContain('portcullis_gateway_request_total');
    expect(
      await withoutSeries(prometheus, [
        ['misspelled', misspelled],
        ['broken', 'sum by (status (rate(portcullis_gateway_requests_total[1m]))'],
      ]),
    ).toEqual([`misspelled: no series for ${misspelled}`, expect.stringMatching(/^broken: .*parse error/)]);
  });
});
