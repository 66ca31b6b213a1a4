import { Counter, type Registry } from 'prom-client';
import type { StatCounter } from './stat-counter.js';

interface TagSet {
  tags: Readonly<Record<string, string>>;
  counter: StatCounter;
}

/**
 * Counters with tags, as upstream's `NewCounterWithTags` (`ratelimit.memcache.multiget` with `code=success`).
 * Every tag set of one name has the same tag keys.
 */
export class TaggedCounters {
  private readonly byName = new Map<string, Map<string, TagSet>>();
  private registry: Registry | undefined;

  counter(name: string, tags: Readonly<Record<string, string>>): StatCounter {
    let sets = this.byName.get(name);
    const isNewName = !sets;
    sets ??= new Map<string, TagSet>();
    this.byName.set(name, sets);
    const suffix = toStatsdSuffix(tags);
    let set = sets.get(suffix);
    if (!set) {
      set = { tags: { ...tags }, counter: { value: 0 } };
      sets.set(suffix, set);
    }
    if (isNewName && this.registry) registerTagged(this.registry, name, sets);
    return set.counter;
  }

  /** Each counter as `<name>.__<key>=<value>` (keys sorted): how upstream's stats library names a tagged stat for plain statsd. */
  *entries(): Generator<[name: string, value: number]> {
    for (const [name, sets] of this.byName) {
      for (const [suffix, { counter }] of sets) yield [`${name}${suffix}`, counter.value];
    }
  }

  /** Each name as one Prometheus counter (dots as underscores), its tags as labels. */
  register(registry: Registry): void {
    this.registry = registry;
    for (const [name, sets] of this.byName) registerTagged(registry, name, sets);
  }
}

function toStatsdSuffix(tags: Readonly<Record<string, string>>): string {
  return Object.keys(tags)
    .sort()
    .map((k) => `.__${k}=${tags[k] ?? ''}`)
    .join('');
}

function registerTagged(registry: Registry, name: string, sets: ReadonlyMap<string, TagSet>): void {
  const first = sets.values().next().value;
  new Counter({
    name: name.replaceAll('.', '_'),
    help: `Upstream statistic ${name}.`,
    labelNames: Object.keys(first?.tags ?? {}).sort(),
    registers: [registry],
    collect() {
      this.reset();
      for (const { tags, counter } of sets.values()) this.inc(tags, counter.value);
    },
  });
}
