import type { ClientTypeState, DiscoveryRequestMessage } from './types.js';
import type { StoredResource, TypeSnapshot } from './snapshot.js';

/** What the server knows about one type on one stream: subscription, nonces, ACKs and NACKs. */
export interface TypeState {
  readonly typeUrl: string;
  wildcard: boolean;
  names: Set<string>;
  /** Set once the client has named resources on this stream; from then on an empty list means none. */
  everExplicit: boolean;
  /** '' until the first response of this type on this stream. */
  lastSentNonce: string;
  lastSentVersion: string;
  sentWildcard: boolean;
  sentNames: Set<string>;
  /** A response is out and the client has not answered it: at most one per type, so updates coalesce. */
  awaitingReply: boolean;
  ackedVersion: string;
  /** The version this client NACKed last; never pushed to it again unless new names are asked for. */
  nackedVersion: string | undefined;
  lastNack: ClientTypeState['lastNack'];
}

export type RequestOutcome =
  /** The nonce is not the latest one sent for the type: ignored, state untouched. */
  | { kind: 'stale'; expectedNonce: string }
  /** The first request of the type on this stream (its nonce, if any, belongs to an earlier stream). */
  | { kind: 'initial' }
  | { kind: 'ack'; version: string; nonce: string }
  | { kind: 'nack'; version: string; nonce: string; message: string; code: number }
  /** Answers the latest response, but with neither its version nor an error_detail. */
  | { kind: 'mismatch'; version: string; nonce: string }
  /** The latest response was already answered: only the subscription may have changed. */
  | { kind: 'resubscribe' };

export function createTypeState(typeUrl: string): TypeState {
  return {
    typeUrl,
    wildcard: false,
    names: new Set(),
    everExplicit: false,
    lastSentNonce: '',
    lastSentVersion: '',
    sentWildcard: false,
    sentNames: new Set(),
    awaitingReply: false,
    ackedVersion: '',
    nackedVersion: undefined,
    lastNack: undefined,
  };
}

/**
 * Applies one request of this type to the state. NACK is detected by the presence of `error_detail`, ACK by
 * `version_info` equal to the version sent with the echoed nonce. A stale request changes nothing.
 */
export function applyRequest(st: TypeState, req: DiscoveryRequestMessage): RequestOutcome {
  const nonce = req.responseNonce ?? '';
  const version = req.versionInfo ?? '';
  if (st.lastSentNonce !== '' && nonce !== st.lastSentNonce) {
    return { kind: 'stale', expectedNonce: st.lastSentNonce };
  }
  updateSubscription(st, req.resourceNames ?? []);
  if (st.lastSentNonce === '') {
    st.ackedVersion = version;
    return { kind: 'initial' };
  }
  if (!st.awaitingReply) return { kind: 'resubscribe' };
  st.awaitingReply = false;
  if (req.errorDetail) {
    const rejected = st.lastSentVersion;
    const nack = {
      version: rejected,
      nonce,
      message: req.errorDetail.message ?? '',
      code: req.errorDetail.code ?? 0,
    };
    st.nackedVersion = rejected;
    st.lastNack = nack;
    return { kind: 'nack', ...nack };
  }
  if (version !== st.lastSentVersion) return { kind: 'mismatch', version, nonce };
  st.ackedVersion = version;
  return { kind: 'ack', version, nonce };
}

/**
 * The spec's legacy wildcard rule: an empty list is a wildcard until the client first names resources on
 * the stream, after which it means "none"; `*` among names asks for everything as well.
 */
function updateSubscription(st: TypeState, resourceNames: readonly string[]): void {
  if (resourceNames.length === 0) {
    st.wildcard = !st.everExplicit;
    st.names = new Set();
    return;
  }
  st.everExplicit = true;
  st.wildcard = resourceNames.includes('*');
  st.names = new Set(resourceNames.filter((n) => n !== '*'));
}

/**
 * Whether the current snapshot version should go out now: always for the first request of the type on the
 * stream (even with zero resources), else when the version moved or new names were asked for; never while
 * a response awaits its answer, and never the version this client last NACKed.
 */
export function shouldSend(st: TypeState, version: string): boolean {
  if (st.awaitingReply) return false;
  if (st.lastSentNonce === '') return true;
  if (!st.wildcard && st.names.size === 0) return false;
  const namesAdded = (st.wildcard && !st.sentWildcard) || [...st.names].some((n) => !st.sentNames.has(n));
  if (version === st.nackedVersion && !namesAdded) return false;
  return version !== st.lastSentVersion || namesAdded;
}

/** Every resource for a wildcard subscription, else every named one that exists, in name order. */
export function selectResources(st: TypeState, snapshot: TypeSnapshot): StoredResource[] {
  const all = [...snapshot.resources.values()];
  return st.wildcard ? all : all.filter((r) => st.names.has(r.name));
}

export function markSent(st: TypeState, sent: { nonce: string; version: string }): void {
  st.lastSentNonce = sent.nonce;
  st.lastSentVersion = sent.version;
  st.sentWildcard = st.wildcard;
  st.sentNames = new Set(st.names);
  st.awaitingReply = true;
}

export function describeTypeState(st: TypeState): ClientTypeState {
  return {
    typeUrl: st.typeUrl,
    subscription: st.wildcard ? '*' : [...st.names].sort(),
    sentVersion: st.lastSentVersion,
    ackedVersion: st.ackedVersion,
    ...(st.lastNack ? { lastNack: { ...st.lastNack } } : {}),
  };
}
