import {
  createHealth,
  createMetricsRegistry,
  startParts,
  type Health,
  type Logger,
  type RunningServer,
} from '@portcullis/kit';
import type { Registry } from 'prom-client';
import { createCounterStore } from './backends/factory.js';
import type { CounterStore } from './backends/types.js';
import { FileConfigSource } from './config/file-source.js';
import { XdsConfigSource } from './config/xds-source.js';
import type { RuleSet } from './config/rule-set.js';
import { Limiter } from './limiter/limiter.js';
import { OverLimitCache, reportLocalCache } from './limiter/over-limit-cache.js';
import { createLocalDebugView, startDebugServer } from './servers/debug-server.js';
import { startGrpcServer } from './servers/grpc-server.js';
import { startHttpServer } from './servers/http-server.js';
import { RateLimitService } from './service.js';
import { configDirectory, type Settings } from './settings.js';
import { Stats } from './stats/stats.js';
import { startStatsdSink, STATSD_DROPPED } from './stats/statsd-sink.js';

export interface RateLimitApp {
  service: RateLimitService;
  stats: Stats;
  registry: Registry;
  health: Health;
  config: FileConfigSource | XdsConfigSource;
  /** Bound ports, known once started (useful when the settings asked for port 0). */
  ports: { http: number; grpc: number; debug: number };
  close(): Promise<void>;
}

export interface AppDeps {
  log: Logger;
  /** Milliseconds since the epoch; tests pin it. */
  now?: () => number;
  /** One of several worker processes: the primary serves the debug port and flushes statsd for all. */
  worker?: boolean;
}

/**
 * Starts the service: counter store, configuration, then the gRPC, HTTP and debug servers. Unless
 * `FORCE_START_WITHOUT_INITIAL_CONFIG`, no port opens before a valid configuration has loaded.
 */
export async function startRateLimit(settings: Readonly<Settings>, deps: AppDeps): Promise<RateLimitApp> {
  const { log } = deps;
  const stats = new Stats({ maxDynamicKeys: settings.stats.maxDynamicKeys });
  const registry = createMetricsRegistry(settings.stats.extraTags);
  stats.register(registry, settings.stats.prometheusNaming);
  const health = createHealth();
  health.register('sigterm', true);
  health.register('kvstore', true);
  if (settings.config.healthyWithAtLeastOneConfigLoaded) health.register('config', false);

  const store: CounterStore = createCounterStore(settings, {
    log,
    stats,
    onConnectedChange: (connected) => {
      if (settings.kvstore.healthCheckActiveConnection) health.set('kvstore', connected);
    },
  });
  const overLimitCache =
    settings.limiter.localCacheSizeBytes > 0
      ? new OverLimitCache(settings.limiter.localCacheSizeBytes)
      : undefined;
  if (overLimitCache) reportLocalCache(stats, overLimitCache);
  const service = new RateLimitService({
    limiter: new Limiter({
      store,
      now: deps.now ?? Date.now,
      nearLimitRatio: settings.limiter.nearLimitRatio,
      cacheKeyPrefix: settings.limiter.cacheKeyPrefix,
      expirationJitterMaxSeconds: settings.limiter.expirationJitterMaxSeconds,
      random: Math.random,
      overLimitCache,
      stopIncrementWhenOverLimit: settings.limiter.stopIncrementWhenOverLimit,
    }),
    stats,
    shadowMode: settings.limiter.shadowMode,
    quotaMode: settings.limiter.quotaMode,
    dynamicMetadata: settings.limiter.dynamicMetadata,
    responseHeaders: settings.limiter.responseHeaders,
  });

  const onRules = (rules: RuleSet): void => {
    service.setRules(rules);
    health.set('config', rules.domains.size > 0);
  };
  const c = settings.config;
  const config =
    c.type === 'FILE'
      ? createFileSource(c, { stats, log, onRules, tokenBuckets: store.supportsTokenBuckets })
      : createXdsSource(c, { stats, log, onRules });
  const waitForConfig = !c.forceStartWithoutInitialConfig;

  const ports = { http: 0, grpc: 0, debug: 0 };
  const servers: RunningServer[] = [];
  const serve = (name: keyof typeof ports, start: () => Promise<RunningServer>) => ({
    name: `${name} server`,
    start: async () => {
      const server = await start();
      ports[name] = server.port;
      servers.push(server);
    },
    close: () => servers.find((s) => s.port === ports[name])?.close(),
  });

  let statsd: { close(): Promise<void> } | undefined;
  const running = await startParts(
    [
      {
        name: 'statsd sink',
        start: () => {
          const { statsd: to, flushIntervalMs, extraTags } = settings.stats;
          if (to.enabled && !deps.worker) {
            const read = () => stats.drainReading();
            const dropped = stats.namedCounter(STATSD_DROPPED);
            statsd = startStatsdSink({ ...to, flushIntervalMs, tags: extraTags, read, log, dropped });
          }
        },
        close: () => statsd?.close(),
      },
      {
        name: 'counter store',
        start: async () => {
          log.info({ backend: settings.limiter.backendType }, 'connecting to the counter store');
          await store.ready();
        },
        close: () => store.close(),
      },
      {
        name: 'config',
        start: async () => {
          if (config instanceof FileConfigSource) {
            if (!(await config.start()) && waitForConfig) {
              log.warn({ directory: configDirectory(c) }, 'waiting for a valid configuration');
              await config.firstUpdate();
            }
          } else {
            config.start();
            if (waitForConfig) {
              log.info(
                { server: c.xds.serverUrl },
                'waiting for the first configuration from the xDS server',
              );
              await config.firstUpdate();
            }
          }
        },
        close: () => config.close(),
      },
      serve('http', () =>
        startHttpServer({ ...settings.http, bounds: settings.request, service, health, log }),
      ),
      ...(deps.worker
        ? []
        : [
            serve('debug', () =>
              startDebugServer({
                ...settings.debug,
                timeouts: settings.http.timeouts,
                view: createLocalDebugView({ service, stats, registry, health }),
                log,
              }),
            ),
          ]),
      // last to start, first to close: while gRPC drains, /healthcheck still answers (unhealthy)
      serve('grpc', () =>
        startGrpcServer({ ...settings.grpc, bounds: settings.request, service, stats, health, log }),
      ),
    ],
    log,
  );
  return { service, stats, registry, health, config, ports, close: () => running.close() };
}

interface SourceDeps {
  stats: Stats;
  log: Logger;
  onRules: (rules: RuleSet) => void;
}

function createFileSource(
  c: Settings['config'],
  deps: SourceDeps & { tokenBuckets: boolean },
): FileConfigSource {
  return new FileConfigSource({
    runtimeRoot: c.runtimeRoot,
    directory: configDirectory(c),
    ignoreDotFiles: c.ignoreDotFiles,
    watchRoot: c.watchRoot,
    mergeDomains: c.mergeDomains,
    ...deps,
  });
}

function createXdsSource(c: Settings['config'], deps: SourceDeps): XdsConfigSource {
  const { tls } = c.xds;
  return new XdsConfigSource({
    serverUrl: c.xds.serverUrl,
    nodeId: c.xds.nodeId,
    nodeMetadata: c.xds.nodeMetadata,
    retryIntervalMs: c.xds.retryIntervalMs,
    additionalHeaders: c.xds.additionalHeaders,
    tls: tls.enabled
      ? {
          ...(tls.caCert ? { caCert: tls.caCert } : {}),
          ...(tls.clientCert ? { clientCert: tls.clientCert } : {}),
          ...(tls.clientKey ? { clientKey: tls.clientKey } : {}),
          ...(tls.serverSan ? { serverNameOverride: tls.serverSan } : {}),
        }
      : undefined,
    mergeDomains: c.mergeDomains,
    ...deps,
  });
}
