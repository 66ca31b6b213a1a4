import { createHealth, createMetricsRegistry, startParts, type Health, type Logger } from '@portcullis/kit';
import { createCounterStore } from './backends/factory.js';
import type { CounterStore } from './backends/types.js';
import { FileConfigSource } from './config/file-source.js';
import type { RuleSet } from './config/rule-set.js';
import { Limiter } from './limiter/limiter.js';
import { startDebugServer } from './servers/debug-server.js';
import { startGrpcServer, type RunningServer } from './servers/grpc-server.js';
import { startHttpServer } from './servers/http-server.js';
import { RateLimitService } from './service.js';
import { configDirectory, type Settings } from './settings.js';
import { Stats } from './stats.js';

export interface RateLimitApp {
  service: RateLimitService;
  stats: Stats;
  health: Health;
  config: FileConfigSource;
  /** Bound ports, known once started (useful when the settings asked for port 0). */
  ports: { http: number; grpc: number; debug: number };
  close(): Promise<void>;
}

export interface AppDeps {
  log: Logger;
  /** Milliseconds since the epoch; tests pin it. */
  now?: () => number;
}

/**
 * Starts the service: counter store, configuration, then the gRPC, HTTP and debug servers. Unless
 * `FORCE_START_WITHOUT_INITIAL_CONFIG`, no port opens before a valid configuration has loaded.
 */
export async function startRateLimit(settings: Readonly<Settings>, deps: AppDeps): Promise<RateLimitApp> {
  const { log } = deps;
  const stats = new Stats();
  const registry = createMetricsRegistry();
  stats.register(registry);
  const health = createHealth();
  health.register('sigterm', true);
  health.register('kvstore', true);
  if (settings.config.healthyWithAtLeastOneConfigLoaded) health.register('config', false);

  const store: CounterStore = createCounterStore(settings, {
    log,
    onConnectedChange: (connected) => {
      if (settings.kvstore.healthCheckActiveConnection) health.set('kvstore', connected);
    },
  });
  const service = new RateLimitService({
    limiter: new Limiter({
      store,
      now: deps.now ?? Date.now,
      nearLimitRatio: settings.limiter.nearLimitRatio,
      cacheKeyPrefix: settings.limiter.cacheKeyPrefix,
      expirationJitterMaxSeconds: settings.limiter.expirationJitterMaxSeconds,
      random: Math.random,
    }),
    stats,
    shadowMode: settings.limiter.shadowMode,
    responseHeaders: settings.limiter.responseHeaders,
  });

  let firstRules: (() => void) | undefined;
  const rulesLoaded = new Promise<void>((resolve) => (firstRules = resolve));
  const config = new FileConfigSource({
    runtimeRoot: settings.config.runtimeRoot,
    directory: configDirectory(settings.config),
    ignoreDotFiles: settings.config.ignoreDotFiles,
    watchRoot: settings.config.watchRoot,
    mergeDomains: settings.config.mergeDomains,
    stats,
    log,
    onRules: (rules: RuleSet) => {
      service.setRules(rules);
      health.set('config', rules.domains.size > 0);
      firstRules?.();
    },
  });

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

  const running = await startParts(
    [
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
          const ok = await config.start();
          if (!ok && !settings.config.forceStartWithoutInitialConfig) {
            log.warn({ directory: configDirectory(settings.config) }, 'waiting for a valid configuration');
            await rulesLoaded;
          }
        },
        close: () => config.close(),
      },
      serve('grpc', () => startGrpcServer({ ...settings.grpc, service, log })),
      serve('http', () => startHttpServer({ ...settings.http, service, health, log })),
      serve('debug', () => startDebugServer({ ...settings.debug, service, stats, registry, health, log })),
    ],
    log,
  );
  return { service, stats, health, config, ports, close: () => running.close() };
}
