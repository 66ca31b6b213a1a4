import { status as GrpcStatus, type ServerDuplexStream } from '@grpc/grpc-js';
import type { Logger } from '@portcullis/kit';
import { encodeDiscoveryResponse } from './response-encoding.js';
import type { SnapshotStore } from './snapshot.js';
import {
  applyRequest,
  createTypeState,
  describeTypeState,
  markSent,
  selectResources,
  shouldSend,
  type TypeState,
} from './type-state.js';
import type { ClientState, DiscoveryRequestMessage, SotwServerEvents } from './types.js';

/** Responses go out already encoded (`encodeDiscoveryResponse`): the server's serializer passes them on. */
export type AdsCall = ServerDuplexStream<DiscoveryRequestMessage, Buffer>;

export interface StreamContext {
  streamId: number;
  snapshots: SnapshotStore;
  /** Unique per server process, so a nonce from an earlier stream never matches a later one by chance. */
  nextNonce(): string;
  emit<E extends keyof SotwServerEvents>(event: E, e: SotwServerEvents[E]): void;
  /** Called once when the stream is over, however it ended. */
  onClosed(): void;
  log: Logger;
}

export interface ServerStream {
  /** Undefined until the first request names the node. */
  describe(): ClientState | undefined;
  /** The snapshot of `typeUrl` changed: send it if this stream subscribes and may receive it now. */
  push(typeUrl: string): void;
  /** Ends the stream with UNAVAILABLE, so the client reconnects (to another replica, or later). */
  shutdown(): void;
}

/** Serves one `StreamAggregatedResources` call: every type multiplexed on it, each with its own state. */
export function serveStream(call: AdsCall, ctx: StreamContext): ServerStream {
  const types = new Map<string, TypeState>();
  const peer = call.getPeer();
  let nodeId: string | undefined;
  let done = false;
  const fields = () => ({ streamId: ctx.streamId, nodeId: nodeId ?? '', peer });

  const finish = (): void => {
    if (done) return;
    done = true;
    ctx.onClosed();
    if (nodeId === undefined) return;
    ctx.log.info(fields(), 'xDS stream closed');
    ctx.emit('disconnect', fields());
  };
  const fail = (code: GrpcStatus, details: string): void => {
    if (done) return;
    call.emit('error', { code, details });
    finish();
  };

  const maybeSend = (st: TypeState): void => {
    const snapshot = ctx.snapshots.get(st.typeUrl);
    if (done || !shouldSend(st, snapshot.version)) return;
    const resources = selectResources(st, snapshot);
    const nonce = ctx.nextNonce();
    const version = snapshot.version;
    const bytes = encodeDiscoveryResponse({
      versionInfo: version,
      typeUrl: st.typeUrl,
      nonce,
      resourceFields: resources.map((r) => r.field),
    });
    call.write(bytes);
    markSent(st, { nonce, version });
    const sent = { typeUrl: st.typeUrl, version, nonce, resources: resources.length, bytes: bytes.length };
    ctx.log.debug({ nodeId, ...sent }, 'xDS response sent');
    ctx.emit('response', { ...fields(), ...sent });
  };

  const handle = (req: DiscoveryRequestMessage): void => {
    if (nodeId === undefined) {
      if (!req.node)
        return fail(GrpcStatus.INVALID_ARGUMENT, 'the first DiscoveryRequest of a stream must carry node');
      nodeId = req.node.id ?? '';
      ctx.log.info(fields(), 'xDS stream opened');
      ctx.emit('connect', fields());
    }
    const typeUrl = req.typeUrl ?? '';
    if (typeUrl === '') return ctx.log.warn({ nodeId }, 'DiscoveryRequest without type_url ignored');
    let st = types.get(typeUrl);
    if (!st) types.set(typeUrl, (st = createTypeState(typeUrl)));
    const outcome = applyRequest(st, req);
    const at = { nodeId, typeUrl, version: req.versionInfo ?? '', nonce: req.responseNonce ?? '' };
    switch (outcome.kind) {
      case 'stale':
        return ctx.log.debug(
          { ...at, expectedNonce: outcome.expectedNonce },
          'stale DiscoveryRequest ignored',
        );
      case 'initial':
        ctx.log.debug({ ...at, resourceNames: req.resourceNames ?? [] }, 'xDS type subscribed');
        break;
      case 'ack':
        ctx.log.debug(at, 'xDS ACK');
        ctx.emit('ack', { ...fields(), typeUrl, version: outcome.version, nonce: outcome.nonce });
        break;
      case 'nack': {
        const { version, nonce, message, code } = outcome;
        ctx.log.warn({ nodeId, typeUrl, version, nonce, code, error: message }, 'xDS NACK');
        ctx.emit('nack', { ...fields(), typeUrl, version, nonce, message, code });
        break;
      }
      case 'mismatch':
        ctx.log.warn({ ...at, sentVersion: st.lastSentVersion }, 'xDS reply is neither ACK nor NACK');
        break;
      case 'resubscribe':
        ctx.log.debug({ ...at, resourceNames: req.resourceNames ?? [] }, 'xDS subscription updated');
        break;
      default: {
        const _: never = outcome;
        return _;
      }
    }
    maybeSend(st);
  };

  call.on('data', (req: DiscoveryRequestMessage) => {
    try {
      handle(req);
    } catch (err: unknown) {
      ctx.log.error({ nodeId, err }, 'xDS request failed');
      fail(GrpcStatus.INTERNAL, 'internal error');
    }
  });
  call.on('end', () => {
    if (!done) call.end();
    finish();
  });
  call.on('cancelled', finish);
  call.on('error', finish);
  call.on('close', finish);

  return {
    describe: () =>
      nodeId === undefined ? undefined : { ...fields(), types: [...types.values()].map(describeTypeState) },
    push: (typeUrl) => {
      const st = types.get(typeUrl);
      if (st) maybeSend(st);
    },
    shutdown: () => fail(GrpcStatus.UNAVAILABLE, 'xDS server shutting down'),
  };
}
