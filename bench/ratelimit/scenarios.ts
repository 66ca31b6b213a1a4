import {
  HOT_KEY_WORKLOAD,
  CLIENT_WORKLOAD,
  algorithmWorkload,
  clientWorkload,
  type Workload,
} from './rls-proto.js';

export const PIPELINE_WINDOW = '1ms';
/** No limit on either side: the window alone decides (the pinned upstream ignores its limit anyway). */
export const PIPELINE_LIMIT = '0';
export const LOCAL_CACHE_BYTES = String(16 * 1024 * 1024);
/** Calls in flight in every scenario: h2load's connections × streams, or wrk's connections. */
export const CALLS_IN_FLIGHT = 64;
export const HTTP_CONNECTIONS = CALLS_IN_FLIGHT;

/** How h2load spreads its calls in flight. */
export interface GrpcShape {
  connections: number;
  streamsPerConnection: number;
}

export const GRPC_SHAPE: GrpcShape = { connections: 4, streamsPerConnection: CALLS_IN_FLIGHT / 4 };
const SCALE_DESCRIPTORS = [5, 10] as const;
const SCALE_CONNECTIONS = [1, 8, 64] as const;

export type Implementation = 'ours' | 'upstream' | 'ceiling';

/** A server to measure: started once, when a selected scenario needs it. */
export interface ServerSpec {
  implementation: Implementation;
  /** Where it counts; none for the ceiling. */
  backend: 'Redis' | 'memcached' | undefined;
  /** Its settings beyond the backend's address and its ports, by its own env names. */
  env: Readonly<Record<string, string>>;
  /** What sets it apart, in the names of its rows: `2 workers`, `pipeline window 1ms`. */
  variant: readonly string[];
}

const OURS_PIPELINED = { KVSTORE_PIPELINE_WINDOW: PIPELINE_WINDOW, KVSTORE_PIPELINE_LIMIT: PIPELINE_LIMIT };
const UPSTREAM_PIPELINED = { REDIS_PIPELINE_WINDOW: PIPELINE_WINDOW, REDIS_PIPELINE_LIMIT: PIPELINE_LIMIT };
// No window is set, not left to the default, so that the row means the same whatever the default. Ours then
// still sends the commands of one event-loop turn in one pipeline (no wait); upstream sends each call's own.
// One worker unless the row says otherwise: the default follows the machine's CPUs.
const OURS_UNPIPELINED = { KVSTORE_PIPELINE_WINDOW: '0' };
const UPSTREAM_UNPIPELINED = { REDIS_PIPELINE_WINDOW: '0' };
const ONE_WORKER = { RATELIMIT_WORKERS: '1' };
const TWO_WORKERS = { RATELIMIT_WORKERS: '2' };
const LOCAL_CACHE = { LOCAL_CACHE_SIZE_IN_BYTES: LOCAL_CACHE_BYTES };
const WINDOW_VARIANT = `pipeline window ${PIPELINE_WINDOW}`;

const ours = (env: Record<string, string>, variant: string[]): ServerSpec => ({
  implementation: 'ours',
  backend: 'Redis',
  env: { ...ONE_WORKER, ...env },
  variant,
});
const upstream = (env: Record<string, string>, variant: string[]): ServerSpec => ({
  implementation: 'upstream',
  backend: 'Redis',
  env,
  variant,
});

export const SERVERS = {
  ceiling: { implementation: 'ceiling', backend: undefined, env: {}, variant: [] },
  upstream: upstream(UPSTREAM_UNPIPELINED, []),
  'upstream, pipeline window': upstream(UPSTREAM_PIPELINED, [WINDOW_VARIANT]),
  'upstream, local cache': upstream({ ...UPSTREAM_UNPIPELINED, ...LOCAL_CACHE }, ['local cache']),
  ours: ours(OURS_UNPIPELINED, []),
  'ours, pipeline window': ours(OURS_PIPELINED, [WINDOW_VARIANT]),
  'ours, 2 workers': ours({ ...OURS_UNPIPELINED, ...TWO_WORKERS }, ['2 workers']),
  'ours, 2 workers, pipeline window': ours({ ...OURS_PIPELINED, ...TWO_WORKERS }, [
    '2 workers',
    WINDOW_VARIANT,
  ]),
  'ours, local cache': ours({ ...OURS_UNPIPELINED, ...LOCAL_CACHE }, ['local cache']),
  'ours, 2 workers, local cache': ours({ ...OURS_UNPIPELINED, ...TWO_WORKERS, ...LOCAL_CACHE }, [
    '2 workers',
    'local cache',
  ]),
  'ours, memcached': { implementation: 'ours', backend: 'memcached', env: ONE_WORKER, variant: [] },
} as const satisfies Record<string, ServerSpec>;

export type ServerName = keyof typeof SERVERS;
export type Protocol = 'grpc' | 'http';

export type ScenarioLoad =
  | { protocol: 'grpc'; workload: Workload; shape: GrpcShape }
  /** `POST /json` with `CLIENT_WORKLOAD`'s request over `HTTP_CONNECTIONS` connections. */
  | { protocol: 'http' };

export type Table = 'main' | 'scale';

export interface Scenario {
  /** Unique; what `BENCH_ONLY` matches and the row shows. */
  name: string;
  server: ServerName;
  load: ScenarioLoad;
  /**
   * The name of the ceiling scenario of the same protocol; undefined on a ceiling and on a row of the scale
   * table alone, whose load the ceiling was not measured under.
   */
  ceiling: string | undefined;
  /** The name of the upstream scenario this one is compared with (`ours/upstream`), if any. */
  reference: string | undefined;
  tables: readonly Table[];
}

const PROTOCOL_LABELS: Record<Protocol, string> = { grpc: 'gRPC', http: 'HTTP POST /json' };
const CEILING_LABELS: Record<Protocol, string> = {
  grpc: 'empty grpc-js (ceiling)',
  http: 'empty fastify (ceiling)',
};

/**
 * `gRPC hot over-limit key, ours + Redis, 2 workers, 5 descriptors`: the protocol, what the load sends when
 * not the usual key, who answers on which backend, what sets the server apart, then the load's own variant.
 */
export function scenarioName(
  protocol: Protocol,
  server: ServerName,
  o: { sends?: string; variant?: readonly string[] } = {},
): string {
  const spec: ServerSpec = SERVERS[server];
  const who =
    spec.implementation === 'ceiling'
      ? CEILING_LABELS[protocol]
      : `${spec.implementation} + ${spec.backend ?? ''}`;
  return [
    `${PROTOCOL_LABELS[protocol]}${o.sends ? ` ${o.sends}` : ''}`,
    who,
    ...spec.variant,
    ...(o.variant ?? []),
  ].join(', ');
}

interface Variation {
  /** What the load sends when not one `client` key: `hot over-limit key`. */
  sends?: string;
  workload?: Workload;
  shape?: GrpcShape;
  /** The load's variant, after the server's: `5 descriptors`. */
  variant?: readonly string[];
  tables?: readonly Table[];
}

function scenario(
  protocol: Protocol,
  server: ServerName,
  o: Variation & { reference?: string | undefined },
): Scenario {
  const tables = o.tables ?? ['main'];
  return {
    name: scenarioName(protocol, server, o),
    server,
    load:
      protocol === 'grpc'
        ? { protocol, workload: o.workload ?? CLIENT_WORKLOAD, shape: o.shape ?? GRPC_SHAPE }
        : { protocol },
    ceiling: server === 'ceiling' || !tables.includes('main') ? undefined : scenarioName(protocol, 'ceiling'),
    reference: o.reference,
    tables,
  };
}

/** Upstream on `rival`, then each of `ours` under the same load, compared with it. */
function versus(
  protocol: Protocol,
  servers: { rival: ServerName; ours: readonly ServerName[] },
  o: Variation = {},
): Scenario[] {
  const rival = scenario(protocol, servers.rival, o);
  return [rival, ...servers.ours.map((s) => scenario(protocol, s, { ...o, reference: rival.name }))];
}

/**
 * Ours in one process, honest about what one process does, then as it runs by default on this machine
 * (`RATELIMIT_WORKERS` defaults to the number of cores, and upstream uses every core too).
 */
const OURS_ONE_AND_TWO_WORKERS = ['ours', 'ours, 2 workers'] as const satisfies readonly ServerName[];

/** Each scenario of the default run, in the order it runs. */
export function listScenarios(): Scenario[] {
  const hot: Variation = { sends: 'hot over-limit key', workload: HOT_KEY_WORKLOAD };
  const perProtocol = (protocol: Protocol): Scenario[] => {
    // the first point of the scale table too
    const tables: Table[] = protocol === 'grpc' ? ['main', 'scale'] : ['main'];
    return [
      scenario(protocol, 'ceiling', {}),
      ...versus(protocol, { rival: 'upstream', ours: OURS_ONE_AND_TWO_WORKERS }, { tables }),
      ...versus(protocol, {
        rival: 'upstream, pipeline window',
        ours: ['ours, pipeline window', 'ours, 2 workers, pipeline window'],
      }),
    ];
  };
  return [
    ...perProtocol('grpc'),
    ...(['sliding window', 'token bucket', 'rate_limits (2 limits)'] as const).map((variant) =>
      scenario('grpc', 'ours', { workload: algorithmWorkload(ALGORITHM_KEYS[variant]), variant: [variant] }),
    ),
    scenario('grpc', 'ours, memcached', {}),
    ...versus('grpc', { rival: 'upstream', ours: OURS_ONE_AND_TWO_WORKERS }, hot),
    ...versus(
      'grpc',
      { rival: 'upstream, local cache', ours: ['ours, local cache', 'ours, 2 workers, local cache'] },
      hot,
    ),
    ...perProtocol('http'),
    ...SCALE_DESCRIPTORS.map((n) =>
      versus(
        'grpc',
        { rival: 'upstream', ours: OURS_ONE_AND_TWO_WORKERS },
        { workload: clientWorkload(n), variant: [`${n} descriptors`], tables: ['scale'] },
      ),
    ).flat(),
    ...SCALE_CONNECTIONS.map((connections) => {
      const streams = CALLS_IN_FLIGHT / connections;
      const variant = `${plural(connections, 'connection')} × ${plural(streams, 'stream')}`;
      return versus(
        'grpc',
        { rival: 'upstream', ours: OURS_ONE_AND_TWO_WORKERS },
        { shape: { connections, streamsPerConnection: streams }, variant: [variant], tables: ['scale'] },
      );
    }).flat(),
  ];
}

/** The rule of `ALGORITHM_RULES_YAML` each algorithm row sends. */
const ALGORITHM_KEYS = {
  'sliding window': 'sliding',
  'token bucket': 'bucket',
  'rate_limits (2 limits)': 'multi',
} as const;

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The scenario named `only`, or else those whose name holds it (all when undefined), with the ceilings and
 * upstream rows they are compared with, so that their ratios hold; in the order of `all`.
 */
export function selectScenarios(all: readonly Scenario[], only: string | undefined): Scenario[] {
  if (only === undefined) return [...all];
  const exact = all.filter((s) => s.name === only);
  const wanted = new Set<string>();
  for (const s of exact.length > 0 ? exact : all.filter((s) => s.name.includes(only))) {
    wanted.add(s.name);
    if (s.ceiling) wanted.add(s.ceiling);
    if (s.reference) wanted.add(s.reference);
  }
  return all.filter((s) => wanted.has(s.name));
}

/** The servers `scenarios` run against, each once, in the order first needed. */
export function serversOf(scenarios: readonly Scenario[]): ServerName[] {
  return [...new Set(scenarios.map((s) => s.server))];
}
