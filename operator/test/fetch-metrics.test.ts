import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchMetrics, ScrapeError } from '../src/shadow-report/fetch-metrics.js';

describe('fetchMetrics', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/metrics') res.end('up 1\n');
      else if (req.url === '/big-declared')
        res.writeHead(200, { 'content-length': 70_000 }).end('x'.repeat(70_000));
      else if (req.url === '/big-chunked') {
        res.write('x'.repeat(40_000));
        setTimeout(() => res.end('x'.repeat(40_000)), 10);
      } else if (req.url === '/hang') res.write('up 1\n');
      else res.writeHead(503).end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const failure = (path: string, o = { timeoutMs: 2000, maxBytes: 65_536 }): Promise<unknown> =>
    fetchMetrics(`${base}${path}`, o).then(
      () => undefined,
      (err: unknown) => (err instanceof ScrapeError ? [err.reason, err.message] : err),
    );

  it('returns the body', async () => {
    expect(await fetchMetrics(`${base}/metrics`, { timeoutMs: 2000, maxBytes: 65_536 })).toBe('up 1\n');
  });

  it('refuses a body over maxBytes, declared or not, a status other than 200, and a body that never ends', async () => {
    expect(await failure('/big-declared')).toEqual(['too_large', 'the body is larger than 65536 bytes']);
    expect(await failure('/big-chunked')).toEqual(['too_large', 'the body is larger than 65536 bytes']);
    expect(await failure('/other')).toEqual(['http_status', 'HTTP 503']);
    expect(await failure('/hang', { timeoutMs: 200, maxBytes: 65_536 })).toEqual([
      'timeout',
      'no complete answer within 200 ms',
    ]);
  });

  it('names an address nothing listens on as unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      fetchMetrics(`http://127.0.0.1:${port}/metrics`, { timeoutMs: 2000, maxBytes: 65_536 }),
    ).rejects.toMatchObject({
      reason: 'unreachable',
      message: 'ECONNREFUSED',
    });
  });
});
