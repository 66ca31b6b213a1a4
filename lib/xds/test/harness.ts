import {
  Client,
  Metadata,
  Server,
  ServerCredentials,
  credentials as grpcCredentials,
  type ChannelCredentials,
  type ServerDuplexStream,
  type StatusObject,
} from '@grpc/grpc-js';
import { freePort, quietLog, createCollectingLog } from '@portcullis/testing';
import {
  createSotwServer,
  loadAdsServiceDefinition,
  loadAdsStreamMethod,
  type DiscoveryRequestMessage,
  type DiscoveryResponseMessage,
  type SotwServer,
  type SotwServerOptions,
  type XdsResource,
} from '@portcullis/xds';

export { createCollectingLog };

export const TYPE_A = 'type.googleapis.com/test.v1.Alpha';
export const TYPE_B = 'type.googleapis.com/test.v1.Beta';

/** A resource whose bytes read `<name>=<content>`, so a response shows which resources it carries. */
export const resource = (name: string, content = name): XdsResource => ({
  name,
  value: Buffer.from(`${name}=${content}`),
});

/** The resources of a response, read back as `<name>=<content>` strings. */
export const texts = (resp: DiscoveryResponseMessage): string[] =>
  (resp.resources ?? []).map((r) => Buffer.from(r.value).toString());

export async function startServer(opts: Partial<SotwServerOptions> = {}): Promise<SotwServer> {
  const server = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog, ...opts });
  await server.start();
  return server;
}

export { quietLog };

export interface RawStream {
  send(req: DiscoveryRequestMessage): void;
  /** The next response on the stream, in order; fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<DiscoveryResponseMessage>;
  /**
   * Proves the server has processed every request sent so far and answered none of them: subscribes a fresh
   * type, whose response must be the very next message (the stream is ordered both ways).
   */
  barrier(): Promise<void>;
  /** The call's final status. */
  status: Promise<StatusObject>;
  close(): void;
}

let probes = 0;

/** A bare ADS stream driven message by message, to assert exactly what goes over the wire. */
export function openRawStream(
  port: number,
  opts: { credentials?: ChannelCredentials; node?: DiscoveryRequestMessage['node'] } = {},
): RawStream {
  const method = loadAdsStreamMethod();
  // the test certificate names localhost; TLS refuses an IP address as server name (RFC 6066)
  const client = new Client(`127.0.0.1:${port}`, opts.credentials ?? grpcCredentials.createInsecure(), {
    'grpc.ssl_target_name_override': 'localhost',
    'grpc.default_authority': 'localhost',
  });
  const call = client.makeBidiStreamRequest(
    method.path,
    method.requestSerialize,
    method.responseDeserialize,
    new Metadata(),
  );
  const received: DiscoveryResponseMessage[] = [];
  const waiting: Array<(r: DiscoveryResponseMessage) => void> = [];
  call.on('data', (r: DiscoveryResponseMessage) => {
    const w = waiting.shift();
    if (w) w(r);
    else received.push(r);
  });
  call.on('error', () => undefined);
  const status = new Promise<StatusObject>((resolve) => call.on('status', resolve));
  const node = opts.node === undefined ? { id: 'raw-node' } : opts.node;
  let first = true;
  const stream: RawStream = {
    send(req) {
      call.write(first && node !== null ? { node, ...req } : req);
      first = false;
    },
    next(timeoutMs = 5000) {
      const r = received.shift();
      if (r) return Promise.resolve(r);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((resp) => {
          clearTimeout(timer);
          resolve(resp);
        });
      });
    },
    async barrier() {
      const typeUrl = `type.googleapis.com/test.v1.Probe${++probes}`;
      stream.send({ typeUrl });
      const resp = await stream.next();
      if (resp.typeUrl !== typeUrl)
        throw new Error(`expected only the probe, got a ${resp.typeUrl} response`);
    },
    status,
    close() {
      call.cancel();
      client.close();
    },
  };
  return stream;
}

export interface ScriptedServer {
  port: number;
  /** Every stream opened, in order, with its metadata and the requests received on it so far. */
  streams: Array<{
    call: AdsServerCall;
    headers: Record<string, unknown>;
    requests: DiscoveryRequestMessage[];
  }>;
  /** Resolves when `count` requests have arrived on stream `index`. */
  requests(index: number, count: number): Promise<DiscoveryRequestMessage[]>;
  close: () => Promise<void>;
}

export type AdsServerCall = ServerDuplexStream<DiscoveryRequestMessage, DiscoveryResponseMessage>;

/**
 * An ADS peer whose every move the test makes (`onStream` answers, ends or resets each stream): used to
 * see exactly what the client sends.
 */
export async function startScriptedServer(
  onStream: (call: AdsServerCall, index: number) => void = () => undefined,
): Promise<ScriptedServer> {
  const server = new Server();
  const streams: ScriptedServer['streams'] = [];
  const waiters: Array<() => void> = [];
  server.addService(loadAdsServiceDefinition().service, {
    StreamAggregatedResources: (call: AdsServerCall) => {
      const entry = { call, headers: call.metadata.getMap(), requests: [] as DiscoveryRequestMessage[] };
      streams.push(entry);
      call.on('data', (req: DiscoveryRequestMessage) => {
        entry.requests.push(req);
        for (const w of waiters.splice(0)) w();
      });
      call.on('error', () => undefined);
      for (const w of waiters.splice(0)) w();
      onStream(call, streams.length - 1);
    },
  });
  const requested = await freePort();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${requested}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    port,
    streams,
    requests: (index, count) =>
      new Promise((resolve) => {
        const check = (): void => {
          const got = streams[index]?.requests ?? [];
          if (got.length >= count) resolve(got.slice(0, count));
          else waiters.push(check);
        };
        check();
      }),
    close: () => {
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}
