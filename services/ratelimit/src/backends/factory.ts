import type { Logger } from '@portcullis/kit';
import type { KvstoreConnection } from './backend-settings.js';
import type { Settings } from '../settings.js';
import type { Stats } from '../stats/stats.js';
import { createMemcachedStore } from './memcached.js';
import { createNodeSource } from './memcached-nodes.js';
import { createTlsTunnels } from './memcached-tls.js';
import { createMemoryStore } from './memory.js';
import { splitPerSecond } from './per-second.js';
import { withPipelineWindow } from './pipeline-window.js';
import { createRedisStore } from './redis.js';
import type { CounterStore } from './types.js';

export interface StoreDeps {
  log: Logger;
  stats: Stats;
  /** True once every Redis deployment has a connection up, false while one has none. */
  onConnectedChange: (connected: boolean) => void;
}

export function createCounterStore(
  settings: Pick<Settings, 'limiter' | 'kvstore' | 'objcache'>,
  deps: StoreDeps,
): CounterStore {
  const backend = settings.limiter.backendType;
  switch (backend) {
    case 'memory': {
      const refused = deps.stats.namedCounter('ratelimit.memory.new_keys_refused');
      const store = createMemoryStore({
        maxKeys: settings.limiter.memoryMaxKeys,
        onFull: () => refused.value++,
      });
      deps.stats.gauge('ratelimit.memory.keys', () => store.size());
      return store;
    }
    case 'redis': {
      const { perSecond } = settings.kvstore;
      if (!perSecond) return createKvstore(settings.kvstore, deps, 'redis_pool');
      const connected = [true, true];
      const onChange = (i: number) => (now: boolean) => {
        const before = connected.every(Boolean);
        connected[i] = now;
        if (connected.every(Boolean) !== before) deps.onConnectedChange(!before);
      };
      return splitPerSecond(
        createKvstore(settings.kvstore, { ...deps, onConnectedChange: onChange(0) }, 'redis_pool'),
        createKvstore(perSecond, { ...deps, onConnectedChange: onChange(1) }, 'redis_per_second_pool'),
      );
    }
    case 'objcache': {
      const o = settings.objcache;
      return createMemcachedStore({
        nodes: createNodeSource({
          hostPorts: o.hostPorts,
          srv: o.srv,
          refreshMs: o.srvRefreshMs,
          log: deps.log,
        }),
        connectionsPerNode: o.maxIdleConns,
        tls: o.tls.enabled ? createTlsTunnels(o.tls, { log: deps.log }) : undefined,
        stats: deps.stats,
        log: deps.log,
      });
    }
    default: {
      const unknown: never = backend;
      throw new Error(`unknown backend ${String(unknown)}`);
    }
  }
}

/** `pool` names its statistics as upstream does: `ratelimit.redis_pool.*`, `ratelimit.redis_per_second_pool.*`. */
function createKvstore(
  connection: KvstoreConnection,
  deps: StoreDeps,
  pool: 'redis_pool' | 'redis_per_second_pool',
): CounterStore {
  const store = createRedisStore({ connection, ...deps, statsPrefix: `ratelimit.${pool}` });
  if (connection.pipelineWindowMs === 0) return store;
  return withPipelineWindow(store, {
    windowMs: connection.pipelineWindowMs,
    limit: connection.pipelineLimit,
  });
}
