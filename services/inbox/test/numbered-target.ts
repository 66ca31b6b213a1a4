import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { spawnLogged, type LoggedProcess } from '@portcullis/testing';

export interface NumberedTarget {
  url: string;
  /** Each capture's `n` (its body is `{"n": i}`), with the times it arrived, first to last. */
  received: Map<number, number[]>;
  close(): Promise<void>;
}

/** A forward target answering 200 after `delayMs(n)`, noting when each capture (`{"n": i}`) came. */
export async function startNumberedTarget(delayMs: (n: number) => number): Promise<NumberedTarget> {
  const received = new Map<number, number[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { n } = JSON.parse(Buffer.concat(chunks).toString()) as { n: number };
      received.set(n, [...(received.get(n) ?? []), Date.now()]);
      setTimeout(() => res.writeHead(200).end(), delayMs(n));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const WORKER_MAIN = join(import.meta.dirname, '../src/worker-main.ts');

/**
 * The forwarding worker as its own process (`worker-main.ts`, one node process: SIGKILL reaches the worker
 * itself, not a wrapper), on the Redis at `redisAddress`, claiming a dead worker's captures after 600 ms.
 */
export function spawnForwardingWorker(o: {
  redisAddress: string;
  name: string;
  maxInFlight: number;
}): LoggedProcess {
  return spawnLogged(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    REDIS_URL: `redis://${o.redisAddress}`,
    INBOX_EGRESS_ALLOW_PRIVATE: 'true',
    INBOX_WORKER_NAME: o.name,
    INBOX_WORKER_CLAIM_IDLE: '600ms',
    INBOX_WORKER_POLL_INTERVAL: '100ms',
    INBOX_WORKER_MAX_IN_FLIGHT: String(o.maxInFlight),
    LOG_LEVEL: 'warn',
  });
}
