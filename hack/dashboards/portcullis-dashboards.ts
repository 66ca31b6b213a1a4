// The chart's dashboards, one per service and an overview, on the metrics the services export by default
// (services/ratelimit/src/stats/stats.ts, services/gateway/src/app.ts, services/inbox/src/metrics.ts,
// services/inbox/src/worker/worker-metrics.ts, operator/src/metrics.ts, lib/redis/src/metrics.ts, lib/kit's
// process metrics). test/dashboards-prometheus.test.ts evaluates every query against the running services.
import type { Dashboard } from '@grafana/schema';
import { createDashboard, domainVariable, type Graph } from './panels.js';

const RATE = '[$__rate_interval]';
/** Every Service of the chart is `<fullname>-<component>`, and fullname always holds "portcullis". */
const RATELIMIT_JOB = 'job=~".*portcullis.*-ratelimit"';

const decisions: Graph = {
  title: 'Decisions/s',
  description: 'ShouldRateLimit calls answered by the rate-limit service (gRPC; /json is not counted).',
  unit: 'reqps',
  queries: [[`sum by (grpc_method) (rate(ratelimit_service_total_requests${RATE}))`, '{{grpc_method}}']],
};

const overLimitRatio: Graph = {
  title: 'Over-limit ratio by domain',
  description: 'Hits over the limit among all hits, per domain (shadow-mode rules count as over limit too).',
  unit: 'percentunit',
  queries: [
    [
      `sum by (domain) (rate(ratelimit_service_rate_limit_over_limit{domain=~"$domain"}${RATE})) / sum by (domain) (rate(ratelimit_service_rate_limit_total_hits{domain=~"$domain"}${RATE}))`,
      '{{domain}}',
    ],
  ],
};

const ratelimitLatency: Graph = {
  title: 'Decision latency',
  description: 'Time from a ShouldRateLimit call received to its answer.',
  unit: 's',
  queries: [
    [
      `histogram_quantile(0.99, sum by (le) (rate(ratelimit_service_response_time_seconds_bucket${RATE})))`,
      'p99',
    ],
    [
      `histogram_quantile(0.5, sum by (le) (rate(ratelimit_service_response_time_seconds_bucket${RATE})))`,
      'p50',
    ],
  ],
};

const ratelimitErrors: Graph = {
  title: 'Rate-limit errors/s',
  description: 'Decisions that failed on the counter backend (Redis or memcached) or inside the service.',
  unit: 'ops',
  queries: [
    [`sum(rate(ratelimit_service_call_should_rate_limit_redis_error${RATE}))`, 'backend'],
    [`sum(rate(ratelimit_service_call_should_rate_limit_service_error${RATE}))`, 'service'],
  ],
};

const forwarding: Graph = {
  title: 'Forwarding outcomes/s',
  description:
    'Delivery attempts of the forwarding workers: delivered (2xx), retrying, dead (dead-lettered).',
  unit: 'ops',
  queries: [[`sum by (outcome) (rate(portcullis_inbox_forward_deliveries_total${RATE}))`, '{{outcome}}']],
};

const forwardingBacklog: Graph = {
  title: 'Forwarding lag and backlog',
  description:
    'Captures no worker has read yet (lag), read and not acknowledged (pending), and dead letters kept. Every worker reports the same figures: the maximum is shown.',
  unit: 'short',
  queries: [
    ['max(portcullis_inbox_forward_lag)', 'lag'],
    ['max(portcullis_inbox_forward_pending)', 'pending'],
    ['max(portcullis_inbox_forward_dead_letters)', 'dead letters'],
  ],
};

const captures: Graph = {
  title: 'Captures/s by outcome',
  description:
    'Requests to receive URLs: stored, unknown_endpoint, too_large, store_full, unavailable, failed.',
  unit: 'reqps',
  queries: [[`sum by (outcome) (rate(portcullis_inbox_captures_total${RATE}))`, '{{outcome}}']],
};

const xds: Graph = {
  title: 'xDS pushes, ACKs and NACKs/s',
  description: 'New snapshot versions published, and the answers of the services, by resource type.',
  unit: 'ops',
  queries: [
    [`sum by (type) (rate(portcullis_operator_xds_pushes_total${RATE}))`, 'push {{type}}'],
    [`sum by (type) (rate(portcullis_operator_xds_acks_total${RATE}))`, 'ACK {{type}}'],
    [`sum by (type) (rate(portcullis_operator_xds_nacks_total${RATE}))`, 'NACK {{type}}'],
  ],
};

const reconciles: Graph = {
  title: 'Reconciled resources/s',
  description: 'Resources reconciled by kind and result; rejected ones are reported on their own status.',
  unit: 'ops',
  queries: [
    [`sum by (kind, result) (rate(portcullis_operator_reconciles_total${RATE}))`, '{{kind}} {{result}}'],
  ],
};

const redisErrors: Graph = {
  title: 'Redis connection errors/s',
  description: "Connection errors of each component's Redis pools, each retry counted.",
  unit: 'ops',
  queries: [
    [`sum by (component, pool) (rate(redis_connection_errors_total${RATE}))`, '{{component}} {{pool}}'],
  ],
};

const redisPools = (component: string): Graph => ({
  title: 'Redis pool',
  description:
    'Clients connected, connections made (reconnections included) and commands awaiting an answer.',
  unit: 'short',
  queries: [
    [`sum by (pool) (redis_connections_active{component=~"${component}"})`, 'connected {{pool}}'],
    [
      `sum by (pool) (increase(redis_connections_total{component=~"${component}"}${RATE}))`,
      'new connections {{pool}}',
    ],
    [`sum by (pool) (redis_commands_pending{component=~"${component}"})`, 'pending {{pool}}'],
  ],
});

const processFigures = (selector: string): Graph => ({
  title: 'Memory and event loop',
  description: 'Resident memory and the event loop delay (p99) of each process.',
  unit: 'short',
  queries: [
    [`process_resident_memory_bytes{${selector}} / 1048576`, 'MiB {{instance}}'],
    [`nodejs_eventloop_lag_p99_seconds{${selector}} * 1000`, 'loop delay ms {{instance}}'],
  ],
});

const ratelimit = createDashboard({
  uid: 'portcullis-ratelimit',
  title: 'Portcullis / Rate limit',
  description: 'The rate-limit service: decisions, rule statistics per domain, latency, backend.',
  variables: [domainVariable],
  graphs: [
    decisions,
    ratelimitLatency,
    overLimitRatio,
    {
      title: 'Hits/s by domain and result',
      description: 'Hits within the limit, near it (past 80%), over it, and let through by shadow mode.',
      unit: 'ops',
      queries: (
        [
          ['within_limit', 'within'],
          ['near_limit', 'near'],
          ['over_limit', 'over'],
          ['shadow_mode', 'shadow'],
        ] as const
      ).map(([stat, legend]) => [
        `sum by (domain) (rate(ratelimit_service_rate_limit_${stat}{domain=~"$domain"}${RATE}))`,
        `{{domain}} ${legend}`,
      ]),
    },
    ratelimitErrors,
    {
      title: 'Redis pool',
      description:
        'Connections of the counter pool (upstream names): up now, and made and closed per second.',
      unit: 'short',
      queries: [
        ['sum(ratelimit_redis_pool_cx_active)', 'connected'],
        [`sum(rate(ratelimit_redis_pool_cx_total${RATE}))`, 'connections/s'],
        [`sum(rate(ratelimit_redis_pool_cx_local_close${RATE}))`, 'closed/s'],
      ],
    },
    {
      title: 'Configuration loads/s',
      description: 'Rule sets put in force, and those refused (NACKed over xDS, or a bad runtime file).',
      unit: 'ops',
      queries: [
        [`sum(rate(ratelimit_service_config_load_success${RATE}))`, 'loaded'],
        [`sum(rate(ratelimit_service_config_load_error${RATE}))`, 'refused'],
      ],
    },
    processFigures(RATELIMIT_JOB),
  ],
});

const gateway = createDashboard({
  uid: 'portcullis-gateway',
  title: 'Portcullis / Gateway',
  description: 'The REST gateway: requests under its base path, rate-limited answers, latency, Redis.',
  graphs: [
    {
      title: 'Requests/s by status',
      description: 'Requests under the base path, by HTTP status.',
      unit: 'reqps',
      queries: [[`sum by (status) (rate(portcullis_gateway_requests_total${RATE}))`, '{{status}}']],
    },
    {
      title: 'Latency',
      description: 'Time to answer a request under the base path, rate-limit decision included.',
      unit: 's',
      queries: [
        [
          `histogram_quantile(0.99, sum by (le) (rate(portcullis_gateway_request_duration_seconds_bucket${RATE})))`,
          'p99',
        ],
        [
          `histogram_quantile(0.5, sum by (le) (rate(portcullis_gateway_request_duration_seconds_bucket${RATE})))`,
          'p50',
        ],
      ],
    },
    {
      title: 'Rate-limited ratio',
      description: 'Requests answered 429 among all requests.',
      unit: 'percentunit',
      queries: [
        [
          `sum(rate(portcullis_gateway_requests_total{status="429"}${RATE})) / sum(rate(portcullis_gateway_requests_total${RATE}))`,
          '429',
        ],
      ],
    },
    redisPools('gateway'),
    processFigures('component="gateway"'),
  ],
});

const inbox = createDashboard({
  uid: 'portcullis-inbox',
  title: 'Portcullis / Inbox',
  description: 'The webhook inbox and its forwarding workers: captures, live streams, forwarding, Redis.',
  graphs: [
    captures,
    {
      title: 'Live streams',
      description: 'Open Server-Sent Events streams (inspector and CLI tails).',
      unit: 'short',
      queries: [['sum(portcullis_inbox_sse_subscribers)', 'streams']],
    },
    forwarding,
    forwardingBacklog,
    {
      title: 'Forwarding in flight and retries',
      description: 'Captures being forwarded now, and delivery attempts after the first per second.',
      unit: 'short',
      queries: [
        ['sum(portcullis_inbox_forward_in_flight)', 'in flight'],
        [`sum(rate(portcullis_inbox_forward_retries_total${RATE}))`, 'retries/s'],
      ],
    },
    redisPools('inbox|inbox-worker'),
    processFigures('component=~"inbox|inbox-worker"'),
  ],
});

const operator = createDashboard({
  uid: 'portcullis-operator',
  title: 'Portcullis / Operator',
  description: 'The operator: reconciles, the xDS snapshot it serves, and the answers of its clients.',
  graphs: [
    reconciles,
    {
      title: 'Reconcile duration',
      description: 'Time to reconcile every resource and update the xDS snapshot.',
      unit: 's',
      queries: [
        [
          `histogram_quantile(0.99, sum by (le) (rate(portcullis_operator_reconcile_duration_seconds_bucket${RATE})))`,
          'p99',
        ],
      ],
    },
    xds,
    {
      title: 'xDS clients, queue and leader',
      description: 'Open xDS streams, resource changes not yet reconciled, and the replica that leads.',
      unit: 'short',
      queries: [
        ['sum(portcullis_operator_xds_clients)', 'xDS clients'],
        ['sum(portcullis_operator_queue_depth)', 'queued changes'],
        ['portcullis_operator_leader', 'leader {{instance}}'],
      ],
    },
    {
      title: 'Status writes',
      description:
        "Status patches by result, and reconciled resources whose status waits to be written (the leader's; the first reconcile of thousands drains here).",
      unit: 'short',
      queries: [
        [`sum by (result) (rate(portcullis_operator_status_writes_total${RATE}))`, '{{result}} /s'],
        ['sum(portcullis_operator_status_writes_pending)', 'waiting'],
      ],
    },
    processFigures('component="operator"'),
  ],
});

const overview = createDashboard({
  uid: 'portcullis-overview',
  title: 'Portcullis / Overview',
  description: 'Every Portcullis component at a glance; each has its own dashboard with more.',
  variables: [domainVariable],
  graphs: [
    decisions,
    overLimitRatio,
    ratelimitLatency,
    ratelimitErrors,
    redisErrors,
    xds,
    reconciles,
    captures,
    forwarding,
    forwardingBacklog,
    {
      title: 'Targets up',
      description: 'Instances of each component that answered their last scrape.',
      unit: 'short',
      queries: [['sum by (job) (up{job=~".*portcullis.*"})', '{{job}}']],
    },
  ],
});

/** File name (without `.json`) → dashboard. */
export const DASHBOARDS: Readonly<Record<string, Dashboard>> = {
  overview,
  ratelimit,
  gateway,
  inbox,
  operator,
};
