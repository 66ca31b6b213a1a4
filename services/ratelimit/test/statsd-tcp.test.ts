import { createServer, type Server, type Socket } from 'node:net';
import { createCollectingLog, freePort, quietLog, waitUntil } from '@portcullis/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStatsdTransport, MAX_QUEUED_BYTES } from '../src/stats/statsd-transport.js';
import { startHarness, type Harness } from './harness.js';

const CONFIG = `domain: d
descriptors:
  - key: k
    rate_limit: {unit: hour, requests_per_unit: 100}
`;

/** A statsd collector on a real TCP port: what it received, line by line. */
interface Collector {
  port: number;
  text(): string;
  lines(): string[];
  /** Connections accepted so far. */
  connections(): number;
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

async function startCollector(port = 0, o: { read: boolean } = { read: true }): Promise<Collector> {
  let text = '';
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (o.read) socket.on('data', (d) => (text += d.toString()));
    else socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    text: () => text,
    lines: () => text.split('\n').slice(0, -1),
    connections: () => connections,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The sum of the deltas received for `name`, as statsd would aggregate them. */
function total(lines: readonly string[], name: string): number {
  return lines
    .filter((l) => l.startsWith(`${name}:`))
    .reduce((sum, l) => sum + Number(/:(\d+)\|c$/.exec(l)?.[1] ?? NaN), 0);
}

const ask = (h: Harness) =>
  h.rls.shouldRateLimit({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
const HITS = 'ratelimit.service.rate_limit.d.k.total_hits.__app=rl';

describe('statsd over TCP, the default as upstream', () => {
  let collector: Collector;
  let h: Harness;

  beforeAll(async () => {
    collector = await startCollector();
    h = await startHarness(
      { 'd.yaml': CONFIG },
      {
        USE_STATSD: 'true',
        STATSD_HOST: '127.0.0.1',
        STATSD_PORT: String(collector.port),
        STATS_FLUSH_INTERVAL: '50ms',
        EXTRA_TAGS: 'app:rl',
      },
    );
  });
  afterAll(async () => {
    await h.close();
    await collector.close();
  });

  it('sends every line ending with a newline, counters as deltas with the tags in the name', async () => {
    for (let i = 0; i < 3; i++) await ask(h);
    await waitUntil(() => total(collector.lines(), HITS) === 3);
    expect(collector.text().endsWith('\n')).toBe(true);
    const line = /^[^\n:|]+:(\d+\|[cg]|\d+\.\d{3}\|ms(\|@[\d.]+)?)$/;
    expect(collector.lines().filter((l) => !line.test(l))).toEqual([]);
    expect((await h.get('/stats', 'debug')).text).toContain('ratelimit.statsd.dropped_lines: 0');
  });

  it('keeps answering while the collector is gone, and reconnects to it when it is back', async () => {
    const port = collector.port;
    await collector.close();
    for (let i = 0; i < 5; i++) expect((await ask(h)).overallCode).toBe('OK');
    collector = await startCollector(port);
    // the hits counted while it was gone waited in the queue
    await waitUntil(() => total(collector.lines(), HITS) > 0, 20_000);
    const before = total(collector.lines(), HITS);
    await ask(h);
    await waitUntil(() => total(collector.lines(), HITS) === before + 1);
  });
});

describe('the TCP transport', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('queues at most MAX_QUEUED_BYTES while the collector is down, counts the lines dropped, sends the rest once it is up', async () => {
    const port = await freePort();
    const dropped = { value: 0 };
    const t = createStatsdTransport({ protocol: 'tcp', host: '127.0.0.1', port, log: quietLog, dropped });
    closers.push(() => t.close());
    const line = `x:${'1'.repeat(1000)}|c`;
    const payload = Array.from({ length: 60 }, () => line).join('\n'); // about 60 kB, 60 lines
    const payloads = Math.ceil((MAX_QUEUED_BYTES * 2) / payload.length);
    t.send(Array.from({ length: payloads }, () => payload));
    expect(dropped.value).toBeGreaterThan(0);
    expect(dropped.value % 60).toBe(0);
    const kept = payloads * 60 - dropped.value;
    expect(kept * (line.length + 1)).toBeLessThanOrEqual(MAX_QUEUED_BYTES);

    const collector = await startCollector(port);
    closers.push(() => collector.close());
    await waitUntil(() => collector.lines().length === kept, 20_000);
    expect(new Set(collector.lines())).toEqual(new Set([line]));
  });

  it('warns once per outage, however many retries it takes, and again after a reconnection', async () => {
    const port = await freePort();
    const { log, lines } = createCollectingLog();
    const t = createStatsdTransport({ protocol: 'tcp', host: '127.0.0.1', port, log, dropped: { value: 0 } });
    closers.push(() => t.close());
    const failures = (level: string): number =>
      lines.filter((l) => l.level === level && String(l['@message']).startsWith('statsd connection failed'))
        .length;
    await waitUntil(() => failures('debug') >= 2, 20_000);
    expect(failures('warn')).toBe(1);
    const collector = await startCollector(port);
    await waitUntil(() => lines.some((l) => l['@message'] === 'connected to statsd'), 20_000);
    await collector.close();
    await waitUntil(() => failures('warn') === 2, 20_000);
  });

  it('sends what is queued before it closes', async () => {
    const collector = await startCollector();
    closers.push(() => collector.close());
    const t = createStatsdTransport({
      protocol: 'tcp',
      host: '127.0.0.1',
      port: collector.port,
      log: quietLog,
      dropped: { value: 0 },
    });
    await waitUntil(() => collector.connections() === 1);
    t.send(['a:1|c\nb:2|c', 'c:3|g']);
    await t.close();
    await waitUntil(() => collector.lines().length === 3);
    expect(collector.text()).toBe('a:1|c\nb:2|c\nc:3|g\n');
  });

  it('never blocks on a collector that does not read: past the queue, lines are dropped', async () => {
    const collector = await startCollector(0, { read: false });
    closers.push(() => collector.close());
    const dropped = { value: 0 };
    const t = createStatsdTransport({
      protocol: 'tcp',
      host: '127.0.0.1',
      port: collector.port,
      log: quietLog,
      dropped,
    });
    closers.push(() => t.close());
    const payload = `y:${'2'.repeat(64 * 1024)}|c`;
    // enough for the queue, the socket's buffer and the kernel's on both ends
    await waitUntil(() => {
      t.send(Array.from({ length: 64 }, () => payload));
      return dropped.value > 0;
    }, 20_000);
  });
});
