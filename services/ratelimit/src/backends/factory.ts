import type { Logger } from '@portcullis/kit';
import type { Settings } from '../settings.js';
import { createMemoryStore } from './memory.js';
import { createRedisStore } from './redis.js';
import type { CounterStore } from './types.js';

export function createCounterStore(
  settings: Pick<Settings, 'limiter' | 'kvstore'>,
  deps: { log: Logger; onConnectedChange: (connected: boolean) => void },
): CounterStore {
  const backend = settings.limiter.backendType;
  switch (backend) {
    case 'memory':
      return createMemoryStore();
    case 'redis': {
      const kv = settings.kvstore;
      return createRedisStore({
        url: kv.url,
        socketType: kv.socketType,
        auth: kv.auth,
        tls: kv.tls.enabled ? kv.tls : undefined,
        poolSize: kv.poolSize,
        timeoutMs: kv.timeoutMs,
        log: deps.log,
        onConnectedChange: deps.onConnectedChange,
      });
    }
    default: {
      const unknown: never = backend;
      throw new Error(`unknown backend ${String(unknown)}`);
    }
  }
}
