import { Metadata, credentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll } from 'vitest';
import {
  replaceRuntimeFile,
  startMemcached,
  startRateLimitProcess,
  startRedis,
  startUpstreamRateLimit,
  waitFor,
  type RedisServer,
  type UpstreamRateLimit,
} from '@portcullis/testing';
import { loadRateLimitServiceDefinition } from '../../src/servers/grpc-server.js';

// Upstream's service and ours side by side, each started from the same environment and the same files, each
// on its own Redis (or both on one, to check that their counters are interchangeable), asked the same thing.

export type Side = 'upstream' | 'ours';
export const SIDES: readonly Side[] = ['upstream', 'ours'];

export interface PairOptions {
  /** Config files (name → YAML), the same for both. */
  files: Record<string, string>;
  /** Settings in upstream's names; both read them. The backend's are added by the pair. */
  env?: Record<string, string>;
  /**
   * Where the counters live: a Redis each (the default), or one store for both, so that their counters are
   * the same ones (as during a rolling update from one to the other).
   */
  store?: 'redis-each' | 'shared-redis' | 'shared-memcached';
}

export interface Answer {
  /** gRPC: the decoded response (defaults left out, 64-bit integers as strings), or the call's error. */
  grpc?: Record<string, unknown>;
  error?: { code: number; details: string };
}

export interface JsonAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface Pair {
  /** Asks both, at the same time, over gRPC. */
  ask(request: object): Promise<Record<Side, Answer>>;
  /** Asks one of them over gRPC. */
  askOne(side: Side, request: object): Promise<Answer>;
  /** POSTs the same `/json` body to both. */
  askJson(body: string): Promise<Record<Side, JsonAnswer>>;
  /** GETs `path` on both HTTP ports. */
  get(path: string): Promise<Record<Side, JsonAnswer>>;
  /** Replaces one config file on both and waits until both have loaded it (or refused it). */
  writeConfigFile(name: string, yaml: string): Promise<Record<Side, 'loaded' | 'refused'>>;
  /** The rate-limit counters each has counted so far, `ratelimit.service.*` names, totals. */
  counters(): Promise<Record<Side, Map<string, number>>>;
  output(side: Side): string;
  stop(): Promise<void>;
}

const FLUSH_MS = 100;

interface Loads {
  loaded: number;
  refused: number;
}

/** Upstream's configuration loads so far, from its log (its statistics wait for a flush). */
function upstreamLoads(upstream: UpstreamRateLimit): Loads {
  const messages = upstream.logLines().map((l) => l['@message']);
  return {
    loaded: messages.filter((m) => m === 'Successfully loaded new configuration').length,
    refused: messages.filter((m) => m.startsWith('Error loading new configuration')).length,
  };
}

async function ourLoads(debugPort: number): Promise<Loads> {
  const stats = await ourCounters(debugPort);
  return {
    loaded: stats.get('ratelimit.service.config_load_success') ?? 0,
    refused: stats.get('ratelimit.service.config_load_error') ?? 0,
  };
}

export async function startPair(o: PairOptions): Promise<Pair> {
  const stores = await startStores(o.store ?? 'redis-each');
  const env = (side: Side): Record<string, string> => ({
    ...stores.env[side],
    // upstream logs its statistics as JSON lines on stdout when no sink is configured; ours keeps them
    USE_STATSD: 'false',
    STATS_FLUSH_INTERVAL: `${FLUSH_MS}ms`,
    RUNTIME_WATCH_ROOT: 'false',
    ...o.env,
  });
  const upstream = await startUpstreamRateLimit({ env: env('upstream'), files: o.files });
  const ours = await startRateLimitProcess(o.files, env('ours'), 60_000);
  const clients: Record<Side, RlsClient> = {
    upstream: createExactClient(upstream.grpcAddress),
    ours: createExactClient(`127.0.0.1:${ours.ports.grpc}`),
  };
  const ports = { upstream: upstream.ports, ours: ours.ports };

  const counters = async (): Promise<Record<Side, Map<string, number>>> => ({
    upstream: await upstreamCounters(upstream),
    ours: await ourCounters(ours.ports.debug),
  });
  const both = async <T>(f: (side: Side) => Promise<T>): Promise<Record<Side, T>> => {
    const [u, m] = await Promise.all([f('upstream'), f('ours')]);
    return { upstream: u, ours: m };
  };
  const http = (side: Side, path: string, init?: RequestInit): Promise<JsonAnswer> =>
    fetch(`http://127.0.0.1:${ports[side].http}${path}`, init).then(async (res) => ({
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      body: await res.text(),
    }));

  const askOne = (side: Side, request: object): Promise<Answer> =>
    clients[side].ask(toGrpcObject(request)).then(
      (grpc) => ({ grpc }),
      (err: unknown) => {
        const e = err as ServiceError;
        return { error: { code: e.code, details: e.details } };
      },
    );
  return {
    ask: (request) => both((side) => askOne(side, request)),
    askOne,
    askJson: (body) => both((side) => http(side, '/json', { method: 'POST', body })),
    get: (path) => both((side) => http(side, path)),
    async writeConfigFile(name, yaml) {
      const before = { upstream: upstreamLoads(upstream), ours: await ourLoads(ours.ports.debug) };
      await Promise.all([upstream.writeConfigFile(name, yaml), replaceRuntimeFile(ours.root, name, yaml)]);
      const after = await waitFor(
        async () => ({ upstream: upstreamLoads(upstream), ours: await ourLoads(ours.ports.debug) }),
        (now) =>
          SIDES.every(
            (side) => now[side].loaded + now[side].refused > before[side].loaded + before[side].refused,
          ),
        { timeoutMs: 20_000, what: `both services reloading ${name}` },
      );
      const outcome = (side: Side): 'loaded' | 'refused' =>
        after[side].loaded > before[side].loaded ? 'loaded' : 'refused';
      return { upstream: outcome('upstream'), ours: outcome('ours') };
    },
    counters,
    output: (side) => (side === 'upstream' ? upstream.output() : ours.output()),
    async stop() {
      for (const side of SIDES) clients[side].close();
      await Promise.all([upstream.stop(), ours.stop()]);
      await stores.stop();
    },
  };
}

/**
 * The pair of the enclosing `describe`: started before its tests, stopped after them. What it returns
 * forwards to that pair, so it is used inside the tests only.
 */
export function usePair(o: PairOptions): Pair {
  let started: Pair | undefined;
  beforeAll(async () => {
    started = await startPair(o);
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });
  const pair = (): Pair => {
    if (!started) throw new Error('the pair starts before the tests of its describe; use it inside them');
    return started;
  };
  return {
    ask: (request) => pair().ask(request),
    askOne: (side, request) => pair().askOne(side, request),
    askJson: (body) => pair().askJson(body),
    get: (path) => pair().get(path),
    writeConfigFile: (name, yaml) => pair().writeConfigFile(name, yaml),
    counters: () => pair().counters(),
    output: (side) => pair().output(side),
    stop: () => pair().stop(),
  };
}

async function startStores(store: NonNullable<PairOptions['store']>): Promise<{
  env: Record<Side, Record<string, string>>;
  stop(): Promise<void>;
}> {
  const redisEnv = (r: RedisServer): Record<string, string> => ({
    BACKEND_TYPE: 'redis',
    REDIS_SOCKET_TYPE: 'tcp',
    REDIS_URL: r.address,
  });
  switch (store) {
    case 'redis-each': {
      const [a, b] = [await startRedis(), await startRedis()];
      return {
        env: { upstream: redisEnv(a), ours: redisEnv(b) },
        stop: async () => {
          await Promise.all([a.stop(), b.stop()]);
        },
      };
    }
    case 'shared-redis': {
      const r = await startRedis();
      return { env: { upstream: redisEnv(r), ours: redisEnv(r) }, stop: () => r.stop() };
    }
    case 'shared-memcached': {
      const m = await startMemcached();
      const env = { BACKEND_TYPE: 'memcache', MEMCACHE_HOST_PORT: m.address };
      return { env: { upstream: env, ours: env }, stop: () => m.stop() };
    }
  }
}

/**
 * A request in proto3 JSON form as grpc-js takes it: a descriptor's `hitsAddend` is a
 * google.protobuf.UInt64Value, a number in JSON but `{value}` as a message object.
 */
function toGrpcObject(request: object): object {
  const r = request as { descriptors?: unknown };
  if (!Array.isArray(r.descriptors)) return request;
  return {
    ...request,
    descriptors: (r.descriptors as Array<Record<string, unknown>>).map((d) =>
      typeof d.hitsAddend === 'number' ? { ...d, hitsAddend: { value: String(d.hitsAddend) } } : d,
    ),
  };
}

interface RlsClient {
  ask(request: object): Promise<Record<string, unknown>>;
  close(): void;
}

/** A gRPC client decoding 64-bit integers as strings, so that no difference is rounded away. */
function createExactClient(address: string): RlsClient {
  const Ctor = loadRateLimitServiceDefinition({ longs: String });
  const client = new Ctor(address, credentials.createInsecure()) as unknown as Client & {
    ShouldRateLimit(
      req: object,
      metadata: Metadata,
      cb: (err: ServiceError | null, res: Record<string, unknown>) => void,
    ): void;
  };
  return {
    ask: (request) =>
      new Promise((resolve, reject) =>
        client.ShouldRateLimit(request, new Metadata(), (err, res) => (err ? reject(err) : resolve(res))),
      ),
    close: () => client.close(),
  };
}

/** One flushed statistic of gostats' logging sink (upstream's stdout sink): counters are deltas. */
interface SinkLine {
  logger?: string;
  msg?: string;
  json?: { name?: string; type?: string; value?: string };
}

/**
 * Totals of the counters upstream has flushed, once two more flushes have passed (so nothing counted before
 * the call is still pending).
 */
async function upstreamCounters(upstream: UpstreamRateLimit): Promise<Map<string, number>> {
  const flushes = (): number => upstream.output().split('flushing all stats').length;
  const seen = flushes();
  await waitFor(flushes, (n) => n >= seen + 2, {
    timeoutMs: 10_000,
    what: 'two flushes of upstream statistics',
  });
  const totals = new Map<string, number>();
  for (const line of upstream.output().split('\n')) {
    if (!line.includes('gostats.loggingsink')) continue;
    const parsed = JSON.parse(line) as SinkLine;
    const { name, type, value } = parsed.json ?? {};
    if (type !== 'counter' || !name) continue;
    totals.set(name, (totals.get(name) ?? 0) + Number(value));
  }
  return totals;
}

/** Our debug port's `/stats`: `name: value` lines, totals. */
async function ourCounters(debugPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${debugPort}/stats`)).text();
  const totals = new Map<string, number>();
  for (const line of text.split('\n')) {
    const at = line.lastIndexOf(': ');
    if (at > 0) totals.set(line.slice(0, at), Number(line.slice(at + 2)));
  }
  return totals;
}
