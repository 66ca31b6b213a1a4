import { createSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import type { Logger } from '@portcullis/kit';
import type { StatCounter } from './stat-counter.js';
import type { StatsdProtocol } from './stats-settings.js';

/** How the statsd sink's payloads (newline-separated lines) reach the collector. */
export interface StatsdTransport {
  /** Payload size the sink packs lines into. */
  readonly maxPayloadBytes: number;
  /** Hands payloads over; never waits for the collector, never throws. */
  send(payloads: readonly string[]): void;
  /** Sends what it still can (TCP: within `CLOSE_GRACE_MS`), then closes. */
  close(): Promise<void>;
}

export interface StatsdTransportOptions {
  protocol: StatsdProtocol;
  host: string;
  port: number;
  log: Logger;
  /** Lines given up on: the TCP queue full while the collector is away, or a UDP send failed. */
  dropped: StatCounter;
}

/** Payload bytes per datagram: what fits an Ethernet MTU after IP and UDP headers (upstream's figure too). */
export const MAX_DATAGRAM_BYTES = 1432;
/** Bytes per TCP write, upstream gostats' buffer size. */
const TCP_CHUNK_BYTES = 64 * 1024;
/** Bytes kept while the collector is away or slow; past it new lines are dropped (upstream keeps about 4 MiB). */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
const CONNECT_TIMEOUT_MS = 1500;
/** Time `close` gives the queue to reach a connected collector. */
const CLOSE_GRACE_MS = 1000;

export function createStatsdTransport(o: StatsdTransportOptions): StatsdTransport {
  return o.protocol === 'tcp' ? createTcpTransport(o) : createUdpTransport(o);
}

/** A reconnection's wait after `failures` failed attempts in a row: 0.25 s doubling to 30 s. */
export function reconnectDelayMs(failures: number): number {
  return Math.min(250 * 2 ** failures, 30_000);
}

/** The lines of a payload: they are joined by `\n`. */
function lineCount(payload: string): number {
  let n = 1;
  for (let i = payload.indexOf('\n'); i >= 0; i = payload.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Lines over one TCP connection, as upstream's gostats sends by default. Payloads wait in a queue of at most
 * `MAX_QUEUED_BYTES` while the collector is away (or reads slower than we write); a payload that does not
 * fit is dropped and its lines counted. The connection is made again after any error, the wait doubling.
 */
function createTcpTransport(o: StatsdTransportOptions): StatsdTransport {
  const log = o.log.child({ component: 'statsd', protocol: 'tcp', host: o.host, port: o.port });
  const queue: string[] = [];
  let queuedBytes = 0;
  let socket: Socket | undefined;
  let connected = false;
  let failures = 0;
  /** Whether a failure was logged at warn since the last connection: an outage warns once. */
  let warned = false;
  let retry: NodeJS.Timeout | undefined;
  let closing = false;
  let dropping = false;

  const pump = (): void => {
    while (socket && connected && queue.length > 0 && socket.writableLength < TCP_CHUNK_BYTES) {
      const payload = queue.shift() as string;
      queuedBytes -= Buffer.byteLength(payload);
      socket.write(payload);
    }
  };

  const open = (): void => {
    retry = undefined;
    const s = connect({ host: o.host, port: o.port });
    socket = s;
    s.setNoDelay(true);
    s.setTimeout(CONNECT_TIMEOUT_MS, () => {
      if (!connected) s.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
    });
    s.on('connect', () => {
      connected = true;
      failures = 0;
      warned = false;
      s.setTimeout(0);
      log.info('connected to statsd');
      pump();
    });
    s.on('drain', pump);
    // statsd sends nothing back; reading keeps a collector that does from filling our receive window
    s.on('data', () => undefined);
    // warn once per outage: an absent collector would otherwise log a line every 30 s for as long as it is gone
    s.on('error', (err) => {
      if (warned) log.debug({ err, failures }, 'statsd connection failed again');
      else log.warn({ err }, 'statsd connection failed, retrying');
      warned = true;
    });
    s.on('close', () => {
      if (socket !== s) return;
      socket = undefined;
      connected = false;
      if (closing) return;
      const delayMs = reconnectDelayMs(failures++);
      retry = setTimeout(open, delayMs);
      retry.unref();
    });
  };

  open();
  return {
    maxPayloadBytes: TCP_CHUNK_BYTES,
    send(payloads) {
      for (const lines of payloads) {
        // over TCP every line ends with a newline, the last one of a payload too
        const payload = `${lines}\n`;
        const bytes = Buffer.byteLength(payload);
        if (queuedBytes + bytes > MAX_QUEUED_BYTES) {
          o.dropped.value += lineCount(lines);
          if (!dropping) log.warn({ maxBytes: MAX_QUEUED_BYTES }, 'statsd queue full, dropping statistics');
          dropping = true;
          continue;
        }
        dropping = false;
        queue.push(payload);
        queuedBytes += bytes;
      }
      pump();
    },
    async close() {
      closing = true;
      clearTimeout(retry);
      const s = socket;
      if (!s) return;
      if (s.connecting) await settled(s);
      if (connected) await queueSent(s);
      if (socket !== s) return; // closed by the collector meanwhile
      // the socket's own buffer goes before the end; a collector that takes none of it is cut off
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => s.destroy(), CLOSE_GRACE_MS);
        s.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        if (connected) s.end();
        else s.destroy();
      });
    },
  };

  /** Resolves once a connection being made is up or failed, or `CLOSE_GRACE_MS` passed. */
  function settled(s: Socket): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, CLOSE_GRACE_MS);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      s.once('connect', done);
      s.once('close', done);
    });
  }

  /** Resolves once the queue is in the socket's buffer, the socket closed, or `CLOSE_GRACE_MS` passed. */
  function queueSent(s: Socket): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        s.off('drain', check);
        s.off('close', done);
        resolve();
      };
      const check = (): void => {
        if (queue.length === 0) done();
      };
      const timer = setTimeout(done, CLOSE_GRACE_MS);
      // after the `drain` listener that pumps
      s.on('drain', check);
      s.once('close', done);
      pump();
      check();
    });
  }
}

/** One datagram per payload, sent at once; a failed send is counted and forgotten (UDP promises no more). */
function createUdpTransport(o: StatsdTransportOptions): StatsdTransport {
  const log = o.log.child({ component: 'statsd', protocol: 'udp', host: o.host, port: o.port });
  const socket = createSocket(o.host.includes(':') ? 'udp6' : 'udp4');
  socket.on('error', (err) => log.warn({ err }, 'statsd socket error'));
  const inFlight = new Set<Promise<void>>();
  return {
    maxPayloadBytes: MAX_DATAGRAM_BYTES,
    send(payloads) {
      for (const payload of payloads) {
        const sent = new Promise<void>((resolve) =>
          socket.send(payload, o.port, o.host, (err) => {
            if (err) {
              o.dropped.value += lineCount(payload);
              log.warn({ err }, 'statsd send failed');
            }
            resolve();
          }),
        );
        inFlight.add(sent);
        void sent.then(() => inFlight.delete(sent));
      }
    },
    async close() {
      await Promise.all(inFlight);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
