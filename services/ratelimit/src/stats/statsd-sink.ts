import { createSocket } from 'node:dgram';
import type { Logger } from '@portcullis/kit';
import type { StatsReading } from './stats.js';

export interface StatsdSinkOptions {
  host: string;
  port: number;
  flushIntervalMs: number;
  /** `EXTRA_TAGS`, added to every name. */
  tags: Readonly<Record<string, string>>;
  /** What to send at each flush: `Stats.drainReading` of this process, or the workers' combined. */
  read(): StatsReading | Promise<StatsReading>;
  log: Logger;
}

/** Payload bytes per datagram: what fits an Ethernet MTU after IP and UDP headers. */
const MAX_DATAGRAM_BYTES = 1432;

/**
 * Sends the statistics to statsd over UDP every `flushIntervalMs`: each counter that moved since the last
 * flush as `<name>:<delta>|c`, then the response times of the interval as `<name>:<ms>|ms` (at most
 * `MAX_TIMING_SAMPLES` each, with their sample rate), several lines to a datagram. Tags are written into the name as upstream's
 * stats library writes them for plain statsd: `<name>.__<key>=<value>`, keys sorted.
 */
export function startStatsdSink(o: StatsdSinkOptions): { close(): Promise<void> } {
  const log = o.log.child({ component: 'statsd' });
  const socket = createSocket(o.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', (err) => log.warn({ err }, 'statsd socket error'));
  const suffix = tagSuffix(o.tags);
  const sent = new Map<string, number>();

  const flush = async (): Promise<void> => {
    const lines: string[] = [];
    const reading = await o.read();
    for (const [name, value] of reading.counters) {
      const delta = value - (sent.get(name) ?? 0);
      if (delta <= 0) continue;
      sent.set(name, value);
      lines.push(`${sanitizeName(name)}${suffix}:${delta}|c`);
    }
    for (const [name, value] of reading.gauges) lines.push(`${sanitizeName(name)}${suffix}:${value}|g`);
    for (const [name, { samples, count }] of reading.timings) {
      // a sample of the interval's timings says which share of them it is, so statsd scales its counts
      const rate = samples.length < count ? `|@${(samples.length / count).toPrecision(4)}` : '';
      for (const ms of samples) lines.push(`${sanitizeName(name)}${suffix}:${ms.toFixed(3)}|ms${rate}`);
    }
    for (const datagram of packLines(lines, MAX_DATAGRAM_BYTES)) {
      await new Promise<void>((resolve) =>
        socket.send(datagram, o.port, o.host, (err) => {
          if (err) log.warn({ err, host: o.host, port: o.port }, 'statsd send failed');
          resolve();
        }),
      );
    }
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
      socket.close();
    },
  };
}

/** `:` and `|` delimit the statsd line, so they cannot stay in a name. */
function sanitizeName(name: string): string {
  return name.replace(/[:|\n]/g, '_');
}

function tagSuffix(tags: Readonly<Record<string, string>>): string {
  return Object.entries(tags)
    .filter(([k, v]) => k !== '' && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `.__${k}=${v.replace(/[.:|]/g, '_')}`)
    .join('');
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
