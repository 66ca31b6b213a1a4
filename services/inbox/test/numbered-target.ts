import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
