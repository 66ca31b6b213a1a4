import { Server } from '@grpc/grpc-js';
import type { Logger } from '@portcullis/kit';
import { loadAdsStreamMethod } from './ads-service.js';
import { serveStream, type AdsCall, type ServerStream } from './server-stream.js';
import { createSnapshotStore } from './snapshot.js';
import { createServerCredentials, type ServerTlsOptions } from './tls-credentials.js';
import type { ClientState, SotwServerEvents, XdsResource } from './types.js';

export interface SotwServerOptions {
  host: string;
  /** 0 picks a free port; `SotwServer.port` tells which after `start()`. */
  port: number;
  log: Logger;
  tls?: ServerTlsOptions;
  /** How long `close()` lets streams drain before cutting them. Default 5000. */
  shutdownGraceMs?: number;
}

export type SotwServerListener<E extends keyof SotwServerEvents> = (e: SotwServerEvents[E]) => void;

export interface SotwServer {
  /** `xds-server`: the server is a lifecycle `Part`. */
  readonly name: string;
  /**
   * Replaces every resource of a type. The version changes only if the content did (it is a content hash);
   * then every stream subscribed to the type gets the new set as soon as it has answered the previous one.
   * Returns the version. @throws DuplicateResourceError when two resources share a name.
   */
  setResources(typeUrl: string, resources: readonly XdsResource[]): string;
  /** The bound port after `start()` (the requested one before). */
  readonly port: number;
  start(): Promise<void>;
  /** Ends every stream with UNAVAILABLE, then shuts the server down; forced after the grace period. */
  close(): Promise<void>;
  /** One entry per open stream that has named its node. */
  clients(): ClientState[];
  /** Listeners run synchronously; one that throws is logged and does not disturb the stream. */
  on<E extends keyof SotwServerEvents>(event: E, listener: SotwServerListener<E>): void;
}

const KEEPALIVE = {
  // pings idle clients so a stream to a vanished pod ends instead of hanging
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/** The xDS state-of-the-world ADS server (`AggregatedDiscoveryService/StreamAggregatedResources`). */
export function createSotwServer(opts: SotwServerOptions): SotwServer {
  const log = opts.log.child({ component: 'xds-server' });
  const graceMs = opts.shutdownGraceMs ?? 5000;
  const snapshots = createSnapshotStore();
  const streams = new Map<number, ServerStream>();
  const listeners: { [E in keyof SotwServerEvents]: Array<SotwServerListener<E>> } = {
    connect: [],
    disconnect: [],
    ack: [],
    nack: [],
    response: [],
  };
  let lastStreamId = 0;
  let lastNonce = 0;
  let server: Server | undefined;
  let boundPort = opts.port;

  const emit = <E extends keyof SotwServerEvents>(event: E, e: SotwServerEvents[E]): void => {
    for (const listener of listeners[event].slice()) {
      try {
        listener(e);
      } catch (err: unknown) {
        log.error({ event, err }, 'xDS event listener failed');
      }
    }
  };

  const handleCall = (call: AdsCall): void => {
    const streamId = ++lastStreamId;
    const stream = serveStream(call, {
      streamId,
      snapshots,
      nextNonce: () => String(++lastNonce),
      emit,
      onClosed: () => streams.delete(streamId),
      log,
    });
    streams.set(streamId, stream);
  };

  return {
    name: 'xds-server',
    get port() {
      return boundPort;
    },
    setResources(typeUrl, resources) {
      const { version, changed } = snapshots.set(typeUrl, resources);
      if (!changed) return version;
      log.info({ typeUrl, version, resources: resources.length }, 'xDS resources updated');
      for (const stream of [...streams.values()]) stream.push(typeUrl);
      return version;
    },
    async start() {
      const s = new Server(KEEPALIVE);
      // responses are written already encoded (server-stream.ts)
      const service = {
        StreamAggregatedResources: { ...loadAdsStreamMethod(), responseSerialize: (b: Buffer) => b },
      };
      s.addService(service, { StreamAggregatedResources: handleCall });
      boundPort = await new Promise<number>((resolve, reject) =>
        s.bindAsync(`${opts.host}:${opts.port}`, createServerCredentials(opts.tls), (err, port) =>
          err ? reject(err) : resolve(port),
        ),
      );
      server = s;
      log.info({ host: opts.host, port: boundPort, tls: opts.tls !== undefined }, 'xDS server listening');
    },
    async close() {
      const s = server;
      server = undefined;
      if (!s) return;
      for (const stream of [...streams.values()]) stream.shutdown();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          log.warn({ graceMs }, 'xDS server forced to shut down');
          s.forceShutdown();
          resolve();
        }, graceMs);
        s.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      log.info({ port: boundPort }, 'xDS server closed');
    },
    clients() {
      return [...streams.values()].flatMap((s) => s.describe() ?? []);
    },
    on(event, listener) {
      listeners[event].push(listener);
    },
  };
}
