import { createSocket, type Socket } from 'node:dgram';
import { waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// Upstream's ratelimit.localcache.* figures: on /stats, as statsd gauges, and on /metrics.

const CONFIG = 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1}\n';

describe('local cache statistics', () => {
  let udp: Socket;
  const lines: string[] = [];
  let h: Harness;

  beforeAll(async () => {
    udp = createSocket('udp4');
    udp.on('message', (m) => lines.push(...m.toString().split('\n')));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    h = await startHarness(
      { 'd.yaml': CONFIG },
      {
        LOCAL_CACHE_SIZE_IN_BYTES: '1048576',
        USE_STATSD: 'true',
        STATSD_PROTOCOL: 'udp',
        STATSD_HOST: '127.0.0.1',
        STATSD_PORT: String(udp.address().port),
        STATS_FLUSH_INTERVAL: '50ms',
      },
    );
  });
  afterAll(async () => {
    await h.close();
    udp.close();
  });

  it('counts lookups, hits, misses and entries', async () => {
    const ask = () =>
      h.rls.shouldRateLimit({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
    await ask(); // within the limit: looked up, not there
    await ask(); // over: looked up, not there yet, then kept
    await ask(); // answered from the cache
    const stats = (await h.get('/stats', 'debug')).text;
    for (const line of [
      'ratelimit.localcache.lookupCount: 3',
      'ratelimit.localcache.hitCount: 1',
      'ratelimit.localcache.missCount: 2',
      'ratelimit.localcache.entryCount: 1',
      'ratelimit.localcache.evacuateCount: 0',
    ])
      expect(stats.split('\n')).toContain(line);
    await waitUntil(() => lines.includes('ratelimit.localcache.hitCount:1|g'));
    expect(lines).toContain('ratelimit.localcache.entryCount:1|g');
    const metrics = (await h.get('/metrics', 'debug')).text.split('\n');
    expect(metrics).toContain('ratelimit_localcache_hitCount 1');
  });
});
