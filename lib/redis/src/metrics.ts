import { Counter, Gauge, type Registry } from 'prom-client';
import type { RedisPool } from './pool.js';

const pooled = new WeakMap<Registry, Map<string, RedisPool>>();

/**
 * Exposes `pool`'s statistics in `registry`, labelled `pool="<name>"`: `redis_connections_active`,
 * `redis_connections_total`, `redis_connection_errors_total`, `redis_commands_pending` (sent, not answered
 * yet). Several pools may share a registry.
 */
export function registerRedisMetrics(registry: Registry, name: string, pool: RedisPool): void {
  const known = pooled.get(registry);
  if (known) {
    known.set(name, pool);
    return;
  }
  const pools = new Map([[name, pool]]);
  pooled.set(registry, pools);
  const each = (read: (p: RedisPool) => number) =>
    function (this: Gauge | Counter) {
      this.reset();
      for (const [label, p] of pools) {
        if (this instanceof Gauge) this.set({ pool: label }, read(p));
        else this.inc({ pool: label }, read(p));
      }
    };
  const registers = [registry];
  new Gauge({
    name: 'redis_connections_active',
    help: 'Redis clients connected now',
    labelNames: ['pool'],
    registers,
    collect: each((p) => p.stats.active),
  });
  new Counter({
    name: 'redis_connections_total',
    help: 'Redis connections made, reconnections included',
    labelNames: ['pool'],
    registers,
    collect: each((p) => p.stats.connects),
  });
  new Counter({
    name: 'redis_connection_errors_total',
    help: 'Redis connection errors, each retry counted',
    labelNames: ['pool'],
    registers,
    collect: each((p) => p.stats.errors),
  });
  new Gauge({
    name: 'redis_commands_pending',
    help: 'Redis commands sent and not answered yet',
    labelNames: ['pool'],
    registers,
    collect: each((p) => p.pendingCommands()),
  });
}
