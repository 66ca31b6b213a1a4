import type { Logger } from '@portcullis/kit';
import { cleanTags, createMogrify } from './dogstatsd.js';
import type { StatCounter } from './stat-counter.js';
import type { StatsReading } from './stats.js';
import type { StatsdSinkSettings } from './stats-settings.js';
import { createStatsdTransport } from './statsd-transport.js';

export interface StatsdSinkOptions extends Omit<StatsdSinkSettings, 'enabled'> {
  flushIntervalMs: number;
  /** `EXTRA_TAGS`, added to every name. */
  tags: Readonly<Record<string, string>>;
  /** What to send at each flush: `Stats.drainReading` of this process, or the workers' combined. */
  read(): StatsReading | Promise<StatsReading>;
  log: Logger;
  /** Counts the lines dropped: the collector away long enough to fill the queue, or a failed send. */
  dropped: StatCounter;
}

/** The counter of lines the statsd sink dropped, `/stats` and statsd itself (once it is back). */
export const STATSD_DROPPED = 'ratelimit.statsd.dropped_lines';

/**
 * Sends the statistics to statsd every `flushIntervalMs` (over TCP or UDP, see `statsd-transport.ts`): each
 * counter that moved since the last flush as `<name>:<delta>|c`, each gauge as `|g`, then the response times
 * of the interval as `<name>:<ms>|ms` (at most `MAX_TIMING_SAMPLES` each, with their sample rate). Tags are
 * written into the name as upstream's stats library writes them for plain statsd, `<name>.__<key>=<value>`
 * keys sorted; with `dogStatsd` as `|#k:v,…` after the mogrifiers renamed the name, as upstream's `godogstats`.
 */
export function startStatsdSink(o: StatsdSinkOptions): { close(): Promise<void> } {
  const transport = createStatsdTransport(o);
  const format = createLineFormat(o);
  const sent = new Map<string, number>();

  const flush = async (): Promise<void> => {
    const lines: string[] = [];
    const reading = await o.read();
    for (const [name, value] of reading.counters) {
      const delta = value - (sent.get(name) ?? 0);
      if (delta <= 0) continue;
      sent.set(name, value);
      lines.push(format.line(name, `${delta}|c`));
    }
    for (const [name, value] of reading.gauges) lines.push(format.line(name, `${value}|g`));
    for (const [name, { samples, count }] of reading.timings) {
      // a sample of the interval's timings says which share of them it is, so statsd scales its counts
      const rate = samples.length < count ? `|@${(samples.length / count).toPrecision(4)}` : '';
      for (const ms of samples) lines.push(format.line(name, `${ms.toFixed(3)}|ms${rate}`));
    }
    format.endFlush();
    transport.send(packLines(lines, transport.maxPayloadBytes));
  };
  // one flush at a time, so the last one (at close) never races a send on a closed socket
  let flushing = Promise.resolve();
  let queued = 0;
  const queueFlush = (): Promise<void> => {
    queued++;
    return (flushing = flushing.then(flush).finally(() => queued--));
  };
  // a reading that takes longer than the interval (workers slow to answer) delays the next, never piles up
  const timer = setInterval(() => void (queued === 0 && queueFlush()), o.flushIntervalMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await queueFlush();
      await transport.close();
    },
  };
}

export interface LineFormat {
  /** `<name><tags>:<value>|<type>`, `value` being `<value>|<type>[|@rate]`. */
  line(name: string, value: string): string;
  /** Ends a flush: names not written in this flush or the one before are forgotten. */
  endFlush(): void;
  /** How many names it holds the parts of: at most those of the last two flushes. */
  heldNames(): number;
}

/** What a statistic's line has around its value, worked out once per name. */
interface LineParts {
  head: string;
  tail: string;
}

/**
 * A statistic's line. Its tags are `EXTRA_TAGS` and those written into its name (`.__k=v`, as
 * `TaggedCounters` names them), sorted by key together, as gostats serialises them; DogStatsD gets them as
 * `|#k:v` and the mogrifier's tags after them, as upstream's `godogstats` separates them from that name.
 */
export function createLineFormat(
  o: Pick<StatsdSinkOptions, 'tags' | 'dogStatsd' | 'mogrifiers'>,
): LineFormat {
  const extra = cleanTags(o.tags);
  const mogrify = o.dogStatsd ? createMogrify(o.mogrifiers) : undefined;
  const partsOf = (name: string): LineParts => {
    const t = splitTags(withoutNewlines(name), extra);
    if (!mogrify) return { head: `${t.name}${t.tags.map(([k, v]) => `.__${k}=${v}`).join('')}:`, tail: '' };
    const m = mogrify(t.name);
    const tags = [...t.tags.map(([k, v]) => `${k}:${v}`), ...m.tags];
    return { head: `${withoutNewlines(m.name)}:`, tail: tags.length > 0 ? `|#${tags.join(',')}` : '' };
  };
  // Stats keeps every name it ever counted (the rules of each configuration loaded, up to
  // STATS_MAX_DYNAMIC_KEYS made from requests); only those written in the last two flushes are held here, so
  // a counter that stopped moving costs nothing, and one that moves again is parsed again.
  let current = new Map<string, LineParts>();
  let previous = new Map<string, LineParts>();
  return {
    line(name, value) {
      let parts = current.get(name);
      if (!parts) {
        parts = previous.get(name) ?? partsOf(name);
        current.set(name, parts);
      }
      return parts.head + value + parts.tail;
    },
    endFlush() {
      previous = current;
      current = new Map();
    },
    heldNames: () => new Set([...previous.keys(), ...current.keys()]).size,
  };
}

type Tag = [key: string, value: string];

function splitTags(name: string, extra: readonly Tag[]): { name: string; tags: Tag[] } {
  const at = name.indexOf('.__');
  if (at < 0) return { name, tags: [...extra] };
  const tags = [...extra];
  for (const pair of name.slice(at + 3).split('.__')) {
    const eq = pair.indexOf('=');
    if (eq > 0) tags.push([pair.slice(0, eq), pair.slice(eq + 1)]);
  }
  tags.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { name: name.slice(0, at), tags };
}

/**
 * A newline ends a statsd line, so one in a name (from a request's value: upstream leaves them there) would
 * send a line of the caller's making. `Stats` has already replaced `:` and `|`, as upstream names statistics.
 */
function withoutNewlines(name: string): string {
  return name.replaceAll('\n', '_');
}

/** Joins lines with `\n` into as few payloads of at most `maxBytes` as they fit; a longer line goes alone. */
export function packLines(lines: readonly string[], maxBytes: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of lines) {
    const next = current === '' ? line : `${current}\n${line}`;
    if (Buffer.byteLength(next) > maxBytes && current !== '') {
      out.push(current);
      current = line;
    } else current = next;
  }
  if (current !== '') out.push(current);
  return out;
}
