import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** The loopback port clients connect to instead of the target's. */
  port: number;
  /** A network partition: resets every open connection and every new one until `heal()`. */
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

/**
 * A TCP forwarder to `127.0.0.1:targetPort` that a test can cut, for faults a server restart cannot give:
 * a client cut off while others keep talking to the same server. TLS passes through untouched.
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let isCut = false;
  const server = createServer((client) => {
    if (isCut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('tcp proxy: no port');
  const cut = (): void => {
    isCut = true;
    for (const s of open) s.resetAndDestroy();
  };
  return {
    port: address.port,
    cut,
    heal: () => void (isCut = false),
    close: async () => {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
