import {
  Client,
  Metadata,
  status as GrpcStatus,
  type ClientDuplexStream,
  type StatusObject,
} from '@grpc/grpc-js';
import { withSpan, type Logger } from '@portcullis/kit';
import { loadAdsStreamMethod } from './ads-service.js';
import { XdsClientClosedError } from './errors.js';
import { computeRetryDelayMs } from './retry-delay.js';
import { createChannelCredentials, type ClientTlsOptions } from './tls-credentials.js';
import type {
  DiscoveryRequestMessage,
  DiscoveryResponseMessage,
  NodeMessage,
  ReceivedResource,
  StatusMessage,
} from './types.js';

export interface SotwClientOptions {
  /** A gRPC target, e.g. `localhost:18000` (upstream's default). */
  serverUrl: string;
  nodeId: string;
  /** Sent as `node.metadata`, a Struct of string values, like upstream's CONFIG_GRPC_XDS_NODE_METADATA. */
  nodeMetadata?: Record<string, string>;
  /** Each subscribed with empty resource_names (a wildcard), on one ADS stream. */
  typeUrls: readonly string[];
  /** Called with the full resource set of a type; throwing (or rejecting) NACKs with the error message. */
  onResources(typeUrl: string, version: string, resources: readonly ReceivedResource[]): void | Promise<void>;
  /** Fields the `xDS config applied` line adds about what `onResources` just applied: `{ routes: 12 }`. */
  describeApplied?(typeUrl: string): AppliedFields;
  /** The least wait before a new stream after one ends; jitter adds up to half of it. */
  retryIntervalMs: number;
  log: Logger;
  tls?: ClientTlsOptions;
  /** Sent as gRPC metadata on every stream. */
  additionalHeaders?: Record<string, string>;
}

export interface SotwClient {
  /** `xds-client`: the client is a lifecycle `Part`. */
  readonly name: string;
  /** Opens the stream; reconnects by itself until `close()`. */
  start(): void;
  close(): Promise<void>;
  /** Resolves after the first ACKed response of every type; rejects with XdsClientClosedError on close. */
  firstUpdate(): Promise<void>;
  /** True while a stream is open and has delivered a response. */
  readonly connected: boolean;
}

/** What the `xDS config applied` log line adds about the config. */
export type AppliedFields = Record<string, unknown>;

interface TypeProgress {
  /** What the next stream's first request reports, and what a NACK carries. */
  ackedVersion: string;
  /** The nonce of the last response received, on this stream or an earlier one (as upstream sends it). */
  receivedNonce: string;
  updated: boolean;
}

type AdsStream = ClientDuplexStream<DiscoveryRequestMessage, DiscoveryResponseMessage>;

/** NACKs carry INVALID_ARGUMENT: the config is what is wrong, and code 0 (upstream's) would read as OK. */
const NACK_CODE = GrpcStatus.INVALID_ARGUMENT;

/**
 * The xDS state-of-the-world client every service uses, with upstream ratelimit's request shapes: node in
 * every request, empty resource_names, ACK echoing version and nonce, NACK with the last ACKed version.
 * The last good config stays in force while disconnected: `onResources` is only called with a response.
 */
export function createSotwClient(o: SotwClientOptions): SotwClient {
  const log = o.log.child({ component: 'xds-client' });
  const fields = Object.fromEntries(
    Object.entries(o.nodeMetadata ?? {}).map(([k, v]) => [k, { stringValue: v }]),
  );
  const node: NodeMessage = { id: o.nodeId, metadata: { fields } };
  const progress = new Map<string, TypeProgress>(
    o.typeUrls.map((t) => [t, { ackedVersion: '', receivedNonce: '', updated: false }]),
  );
  const method = loadAdsStreamMethod();
  let channel: Client | undefined;
  let stream: AdsStream | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let connected = false;
  let closed = false;
  let applying = Promise.resolve();
  let resolveFirst = (): void => undefined;
  let rejectFirst = (_err: Error): void => undefined;
  const first = new Promise<void>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  first.catch(() => undefined); // handled by whoever awaits firstUpdate(); nobody has to
  if (progress.size === 0) resolveFirst();

  // proto3 zero values are left out, as Go leaves them out: protobufjs would put an empty string on the wire
  const request = (
    typeUrl: string,
    p: TypeProgress,
    errorDetail?: StatusMessage,
  ): DiscoveryRequestMessage => ({
    ...(p.ackedVersion ? { versionInfo: p.ackedVersion } : {}),
    node,
    typeUrl,
    ...(p.receivedNonce ? { responseNonce: p.receivedNonce } : {}),
    ...(errorDetail ? { errorDetail } : {}),
  });

  const openStream = (ch: Client): void => {
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(o.additionalHeaders ?? {})) metadata.set(key, value);
    const s: AdsStream = ch.makeBidiStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      metadata,
    );
    stream = s;
    s.on('data', (resp: DiscoveryResponseMessage) => {
      if (stream !== s) return;
      if (!connected) log.info({ serverUrl: o.serverUrl }, 'xDS stream connected');
      connected = true;
      applying = applying
        .then(() => handleResponse(s, resp))
        .catch((err: unknown) => log.error({ typeUrl: resp.typeUrl, err }, 'xDS response handling failed'));
    });
    s.on('error', () => undefined); // the status that follows says why
    s.on('status', (st: StatusObject) => streamEnded(s, st));
    for (const [typeUrl, p] of progress) s.write(request(typeUrl, p));
    log.debug({ serverUrl: o.serverUrl, types: [...progress.keys()] }, 'xDS stream started');
  };

  const streamEnded = (s: AdsStream, st: StatusObject): void => {
    if (stream !== s) return;
    stream = undefined;
    connected = false;
    if (closed || !channel) return;
    const ch = channel;
    const delayMs = computeRetryDelayMs(o.retryIntervalMs, Math.random);
    log.warn(
      { serverUrl: o.serverUrl, code: st.code, details: st.details, delayMs },
      'xDS stream ended, retrying',
    );
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      if (!closed) openStream(ch);
    }, delayMs);
  };

  const handleResponse = async (s: AdsStream, resp: DiscoveryResponseMessage): Promise<void> => {
    const typeUrl = resp.typeUrl ?? '';
    const version = resp.versionInfo ?? '';
    const nonce = resp.nonce ?? '';
    const p = progress.get(typeUrl);
    if (!p) return log.warn({ typeUrl, version, nonce }, 'xDS response for a type not subscribed, ignored');
    p.receivedNonce = nonce;
    const resources = (resp.resources ?? []).map((r) => ({ typeUrl: r.type_url, value: r.value }));
    const outcome = await apply(typeUrl, version, resources);
    if (closed) return;
    if (outcome.ok) {
      p.ackedVersion = version;
      const fields = { typeUrl, version, nonce, resources: resources.length, ...outcome.fields };
      log.info(fields, 'xDS config applied');
      if (stream === s) s.write(request(typeUrl, p));
      p.updated = true;
      if ([...progress.values()].every((t) => t.updated)) resolveFirst();
    } else {
      const { error, err } = outcome;
      log.warn({ typeUrl, version, nonce, ackedVersion: p.ackedVersion, error, err }, 'xDS config rejected');
      if (stream === s) s.write(request(typeUrl, p, { code: NACK_CODE, message: error }));
    }
  };

  /** What `onResources` made of the response: the fields to log, or the message that NACKs it. */
  const apply = async (
    typeUrl: string,
    version: string,
    resources: ReceivedResource[],
  ): Promise<{ ok: true; fields: AppliedFields } | { ok: false; error: string; err?: unknown }> => {
    const foreign = resources.findIndex((r) => r.typeUrl !== typeUrl);
    if (foreign >= 0) {
      const error = `resources[${foreign}]: type ${resources[foreign]?.typeUrl}, expected ${typeUrl}`;
      return { ok: false, error };
    }
    try {
      await withSpan('@portcullis/xds', 'xds.apply', async (span) => {
        span.setAttributes({
          'xds.type_url': typeUrl,
          'xds.version': version,
          'xds.resources': resources.length,
        });
        await o.onResources(typeUrl, version, resources);
      });
      return { ok: true, fields: o.describeApplied?.(typeUrl) ?? {} };
    } catch (err: unknown) {
      return { ok: false, error: err instanceof Error ? err.message : String(err), err };
    }
  };

  return {
    name: 'xds-client',
    get connected() {
      return connected;
    },
    start() {
      if (channel || closed) return;
      const creds = createChannelCredentials(o.tls);
      channel = new Client(o.serverUrl, creds.credentials, {
        ...creds.options,
        // the channel's own reconnect backoff grows to 120 s; ours is the only one that should apply
        'grpc.initial_reconnect_backoff_ms': o.retryIntervalMs,
        'grpc.max_reconnect_backoff_ms': o.retryIntervalMs,
      });
      openStream(channel);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(retryTimer);
      const s = stream;
      stream = undefined;
      connected = false;
      s?.cancel();
      channel?.close();
      rejectFirst(new XdsClientClosedError());
      await applying;
    },
    firstUpdate: () => first,
  };
}
