import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** The loopback port clients connect to instead of the target's. */
  port: number;
  /** How many connections clients have opened through it so far. */
  connections(): number;
  /** A network partition: resets every open connection and every new one until `heal()`. */
  cut(): void;
  heal(): void;
  /**
   * Holds what clients send (on open connections and new ones) until `release()`: a request stalled on its
   * way to the target, its connection still open, while the test acts first.
   */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /**
   * The target's bytes reach the client up to this much later (each chunk a random delay, never
   * overtaking the one before): a server a little way off, or a loaded host, so replies are still due
   * when the client's next event-loop turns run, and one connection's replies overtake another's. 0: at once.
   */
  replyDelayMs?: number;
}

/**
 * A TCP forwarder to `127.0.0.1:targetPort` that a test can cut, for faults a server restart cannot give:
 * a client cut off while others keep talking to the same server. TLS passes through untouched.
 */
export async function startTcpProxy(targetPort: number, o: TcpProxyOptions = {}): Promise<TcpProxy> {
  const replyDelayMs = o.replyDelayMs ?? 0;
  const open = new Set<Socket>();
  let isCut = false;
  let isHeld = false;
  let accepted = 0;
  const sending = new Map<Socket, Socket>();
  const server = createServer((client) => {
    accepted++;
    if (isCut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    sending.set(client, upstream);
    client.on('close', () => sending.delete(client));
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
      if (a === upstream && replyDelayMs > 0) delayInto(a, b, replyDelayMs);
      else if (a === upstream || !isHeld) a.pipe(b);
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
    connections: () => accepted,
    cut,
    heal: () => void (isCut = false),
    hold: () => {
      isHeld = true;
      // unpiped, a socket keeps what arrives in its buffer until it is piped again
      for (const [client, upstream] of sending) client.unpipe(upstream);
    },
    release: () => {
      isHeld = false;
      for (const [client, upstream] of sending) client.pipe(upstream);
    },
    close: async () => {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `from`'s chunks written to `to` after a random delay of up to `maxDelayMs` each, in order. */
function delayInto(from: Socket, to: Socket, maxDelayMs: number): void {
  const due: Array<{ at: number; chunk: Buffer }> = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    for (let next = due[0]; next && next.at <= Date.now(); next = due[0]) {
      due.shift();
      to.write(next.chunk);
    }
    const next = due[0];
    if (next) timer = setTimeout(flush, next.at - Date.now());
  };
  from.on('data', (chunk: Buffer) => {
    const at = Math.max(due.at(-1)?.at ?? 0, Date.now() + Math.random() * maxDelayMs);
    due.push({ at, chunk });
    timer ??= setTimeout(flush, at - Date.now());
  });
}
