import { StoreFullError } from '../errors.js';
import { compareStreamIds, parseStreamId, ZERO_STREAM_ID } from '../contract/stream-id.js';
import { createForwardingWatchers } from './forwarding-watchers.js';
import type { Capture, CaptureInput, ForwardAttempt } from '../contract/capture-records.js';
import { toCaptureTail } from './capture-tail.js';
import type {
  CaptureBatches,
  EndpointRecord,
  InboxStore,
  LiveReader,
  OnTrimmed,
  Retention,
  ShareRecord,
} from './types.js';

export interface MemoryStoreOptions {
  now?: () => number;
  /** Captures held at once, by `captureBytes`, across every endpoint; 256 MiB by default. */
  maxBytes?: number;
  /** Endpoints created through the API (managed ones count but are never refused); 10,000 by default. */
  maxEndpoints?: number;
  /** Called each time a capture or an endpoint is refused for a bound: the metric's hook. */
  onFull?: (what: 'capture' | 'endpoint') => void;
  onTrimmed?: OnTrimmed;
}

/** What one capture is charged: its bytes, plus a flat share for the object and its strings. */
export const CAPTURE_OVERHEAD_BYTES = 256;

export function captureBytes(c: CaptureInput): number {
  const strings = [
    c.method,
    c.url,
    c.nestedPath,
    c.httpVersion,
    c.remoteAddress,
    c.bodySha256,
    ...c.rawHeaders,
  ];
  return c.body.byteLength + strings.reduce((n, v) => n + Buffer.byteLength(v), 0) + CAPTURE_OVERHEAD_BYTES;
}

/**
 * The memory store's counterpart of the Redis `forwarders` consumer group on one endpoint's captures: what
 * memory-forward-queue.ts reads through. Lives as long as the endpoint's captures, as the group does.
 */
export interface MemoryForwardGroup {
  /** The last capture read: new ones are those after it. */
  lastReadId: string;
  /** Captures read and not yet acknowledged: request id → when last read or touched (ms). */
  pending: Map<string, number>;
}

export interface MemoryInboxStore extends InboxStore {
  readonly kind: 'memory';
  /**
   * By endpoint id. Created at the end of the captures by the sync that gives a managed endpoint an enabled
   * target (as Redis's `XGROUP CREATE … $`), so what arrives before the forwarder next looks is forwarded.
   */
  readonly forwardGroups: Map<string, MemoryForwardGroup>;
}

interface Stream {
  /** Oldest first. */
  entries: Capture[];
  lastId: string;
}

/**
 * The store in process memory, for local mode: the Redis store's behaviour (ids like `XADD *`, trimming
 * by count and age, detached captures of removed managed endpoints), with exact trimming where Redis
 * trims approximately. Its live readers wake on an in-process notifier.
 *
 * Bounded: a capture that would take the held bytes past `maxBytes`, or an endpoint past `maxEndpoints`,
 * is refused with `StoreFullError` (507) and nothing changes. Stored captures are never dropped to make room:
 * each was acknowledged to its sender, who can retry a refusal but would never learn of an eviction.
 */
export function createMemoryStore(o: MemoryStoreOptions = {}): MemoryInboxStore {
  const now = o.now ?? Date.now;
  const maxBytes = o.maxBytes ?? 256 * 1024 * 1024;
  const maxEndpoints = o.maxEndpoints ?? 10_000;
  /** `captureBytes` of every capture held, detached ones included. */
  let heldBytes = 0;
  const release = (entries: readonly Capture[]): void => {
    for (const c of entries) heldBytes -= captureBytes(c);
  };
  const refuse = (what: 'capture' | 'endpoint'): Promise<never> => {
    o.onFull?.(what);
    return Promise.reject(new StoreFullError(what));
  };
  const endpoints = new Map<string, EndpointRecord>();
  const streams = new Map<string, Stream>();
  /** Captures of removed managed endpoints: dropped at `expiresAt` unless the resource comes back. */
  const detached = new Map<string, { stream: Stream; expiresAt: number }>();
  const waiters = new Map<string, Set<() => void>>();
  const forwardGroups = new Map<string, MemoryForwardGroup>();
  /** Forwarding history by endpoint id, then request id. */
  const forwarding = new Map<string, Map<string, ForwardAttempt[]>>();
  /** Share links by endpoint id, oldest first. */
  const shares = new Map<string, ShareRecord[]>();
  const forwardingWatchers = createForwardingWatchers();
  /** Endpoint ids by account id, in the order they joined it. */
  const owned = new Map<string, string[]>();
  const own = (accountId: string, id: string): void => {
    owned.set(accountId, [...(owned.get(accountId) ?? []), id]);
  };

  const copy = (r: EndpointRecord): EndpointRecord => ({
    ...r,
    retention: { ...r.retention },
    forward: r.forward.map((t) => ({ ...t })),
    ...(r.response
      ? { response: { ...r.response, headers: r.response.headers.map((h) => ({ ...h })) } }
      : {}),
  });
  const countTrimmed = (reason: 'count' | 'age', n: number): void => {
    if (n > 0) o.onTrimmed?.(reason, n);
  };
  /** The endpoint the API may change: anonymous or an account's. */
  const changeable = (id: string): EndpointRecord | undefined => {
    const r = endpoints.get(id);
    return r && r.kind !== 'managed' ? r : undefined;
  };
  const wake = (id: string): void => {
    for (const w of [...(waiters.get(id) ?? [])]) w();
  };
  const streamOf = (id: string): Stream => {
    let s = streams.get(id);
    if (!s) streams.set(id, (s = { entries: [], lastId: ZERO_STREAM_ID }));
    return s;
  };
  const nextId = (s: Stream): string => {
    const [lastMs, lastSeq] = parseStreamId(s.lastId);
    const ms = Math.max(now(), lastMs);
    return ms === lastMs ? `${ms}-${lastSeq + 1}` : `${ms}-0`;
  };
  const after = (id: string, afterId: string, limit: number): Capture[] =>
    (streams.get(id)?.entries ?? []).filter((c) => compareStreamIds(c.id, afterId) > 0).slice(0, limit);

  return {
    kind: 'memory',
    forwardGroups,
    createEndpoint(endpoint) {
      if (endpoints.size >= maxEndpoints) return refuse('endpoint');
      const kind = endpoint.ownerId === '' ? 'anonymous' : 'account';
      endpoints.set(endpoint.id, copy({ ...endpoint, kind, resource: '', forward: [] }));
      if (kind === 'account') own(endpoint.ownerId, endpoint.id);
      return Promise.resolve();
    },
    listAccountEndpoints(accountId) {
      const ids = [...(owned.get(accountId) ?? [])].reverse();
      const records = ids.map((id) => endpoints.get(id));
      return Promise.resolve(records.filter((r): r is EndpointRecord => r?.ownerId === accountId).map(copy));
    },
    claimEndpoint(id, claim) {
      const r = endpoints.get(id);
      if (r?.kind !== 'anonymous' || r.tokenSha256 !== claim.tokenSha256) return Promise.resolve(false);
      Object.assign(r, { kind: 'account', ownerId: claim.accountId, tokenSha256: '' });
      own(claim.accountId, id);
      return Promise.resolve(true);
    },
    getEndpoint(id) {
      const r = endpoints.get(id);
      return Promise.resolve(r && copy(r));
    },
    renameEndpoint(id, name) {
      const r = endpoints.get(id);
      if (r) r.name = name;
      return Promise.resolve(r !== undefined);
    },
    setSignature(id, signature) {
      const r = changeable(id);
      if (r && signature) r.signature = signature;
      else if (r) delete r.signature;
      return Promise.resolve(r !== undefined);
    },
    setEndpointResponse(id, response) {
      const r = changeable(id);
      if (r) {
        const { response: _old, ...rest } = r;
        endpoints.set(id, copy(response ? { ...rest, response } : rest));
      }
      return Promise.resolve(r !== undefined);
    },
    setEndpointRetention(id, retention: Retention) {
      const r = changeable(id);
      if (r) r.retention = { ...retention };
      return Promise.resolve(r !== undefined);
    },
    deleteEndpoint(id) {
      const ownerId = endpoints.get(id)?.ownerId;
      if (ownerId)
        owned.set(
          ownerId,
          (owned.get(ownerId) ?? []).filter((i) => i !== id),
        );
      const existed = endpoints.delete(id);
      release(streams.get(id)?.entries ?? []);
      streams.delete(id);
      forwarding.delete(id);
      forwardGroups.delete(id);
      shares.delete(id);
      if (existed) wake(id);
      return Promise.resolve(existed);
    },
    syncManagedEndpoints(list) {
      const conflicts: string[] = [];
      const wanted = new Set(list.map((e) => e.id));
      for (const [id, r] of endpoints) {
        if (r.kind !== 'managed' || wanted.has(id)) continue;
        endpoints.delete(id);
        const stream = streams.get(id);
        streams.delete(id);
        if (stream) detached.set(id, { stream, expiresAt: now() + r.retention.maxAgeMs });
        wake(id);
      }
      for (const e of list) {
        const before = endpoints.get(e.id);
        if (before && before.kind !== 'managed') {
          conflicts.push(e.id);
          continue;
        }
        const createdAt = before?.createdAt ?? new Date(now()).toISOString();
        endpoints.set(e.id, copy({ ...e, kind: 'managed', tokenSha256: '', ownerId: '', createdAt }));
        const back = detached.get(e.id);
        detached.delete(e.id);
        if (back && !streams.has(e.id)) streams.set(e.id, back.stream);
        else if (back) release(back.stream.entries);
        if (e.forward.some((t) => t.enabled) && !forwardGroups.has(e.id))
          forwardGroups.set(e.id, { lastReadId: streamOf(e.id).lastId, pending: new Map() });
      }
      return Promise.resolve({ conflicts });
    },
    listManagedEndpoints() {
      return Promise.resolve([...endpoints.values()].filter((r) => r.kind === 'managed').map(copy));
    },
    appendCapture(endpointId, capture, maxRequests) {
      if (!endpoints.has(endpointId)) return Promise.resolve(undefined);
      const s = streamOf(endpointId);
      const trimmed = s.entries.slice(0, Math.max(0, s.entries.length + 1 - maxRequests));
      const bytes = captureBytes(capture);
      if (heldBytes + bytes - trimmed.reduce((n, c) => n + captureBytes(c), 0) > maxBytes)
        return refuse('capture');
      const id = nextId(s);
      s.lastId = id;
      s.entries.push({ ...capture, rawHeaders: [...capture.rawHeaders], id });
      heldBytes += bytes;
      if (s.entries.length > maxRequests) {
        const dropped = s.entries.splice(0, s.entries.length - maxRequests);
        release(dropped);
        countTrimmed('count', dropped.length);
      }
      wake(endpointId);
      return Promise.resolve(id);
    },
    getCapture(endpointId, id) {
      return Promise.resolve(streams.get(endpointId)?.entries.find((c) => c.id === id));
    },
    listCaptures(endpointId, opts) {
      const entries = streams.get(endpointId)?.entries ?? [];
      const { before, since } = opts;
      const older = entries.filter(
        (c) =>
          (before === undefined || compareStreamIds(c.id, before) < 0) &&
          (since === undefined || compareStreamIds(c.id, since) >= 0),
      );
      return Promise.resolve(older.slice(-opts.limit).reverse());
    },
    listCapturesAfter(endpointId, opts) {
      return Promise.resolve(after(endpointId, opts.after, opts.limit));
    },
    lastCaptureId(endpointId) {
      return Promise.resolve(streams.get(endpointId)?.entries.at(-1)?.id ?? ZERO_STREAM_ID);
    },
    countCaptures(endpointId) {
      return Promise.resolve(streams.get(endpointId)?.entries.length ?? 0);
    },
    trimByAge(nowMs) {
      for (const [id, s] of streams) {
        const maxAgeMs = endpoints.get(id)?.retention.maxAgeMs;
        if (maxAgeMs === undefined) continue;
        const isOld = (c: Capture): boolean => parseStreamId(c.id)[0] < nowMs - maxAgeMs;
        const old = s.entries.filter(isOld);
        release(old);
        countTrimmed('age', old.length);
        s.entries = s.entries.filter((c) => !isOld(c));
      }
      for (const [id, d] of detached) {
        if (d.expiresAt > nowMs) continue;
        release(d.stream.entries);
        detached.delete(id);
        forwardGroups.delete(id);
      }
      return Promise.resolve();
    },
    openTail(endpointId) {
      return toCaptureTail(openLiveReader(), endpointId);
    },
    openLiveReader,
    recordForwardAttempt(endpointId, requestId, attempt) {
      const byRequest = forwarding.get(endpointId) ?? new Map<string, ForwardAttempt[]>();
      forwarding.set(endpointId, byRequest);
      byRequest.set(requestId, [...(byRequest.get(requestId) ?? []), { ...attempt }]);
      forwardingWatchers.emit(endpointId, { requestId, ...attempt });
      return Promise.resolve();
    },
    listForwardAttempts(endpointId, requestId) {
      return Promise.resolve((forwarding.get(endpointId)?.get(requestId) ?? []).map((a) => ({ ...a })));
    },
    createShare(endpointId, share, max) {
      if (!endpoints.has(endpointId)) return Promise.resolve('missing');
      const list = shares.get(endpointId) ?? [];
      if (list.length >= max) return Promise.resolve('limit');
      shares.set(endpointId, [...list, { ...share }]);
      return Promise.resolve('created');
    },
    listShares(endpointId) {
      return Promise.resolve((shares.get(endpointId) ?? []).map((r) => ({ ...r })));
    },
    deleteShare(endpointId, shareId) {
      const list = shares.get(endpointId) ?? [];
      const kept = list.filter((r) => r.id !== shareId);
      if (kept.length < list.length) shares.set(endpointId, kept);
      return Promise.resolve(kept.length < list.length);
    },
    listForwardHistories(endpointId, requestIds) {
      const byRequest = forwarding.get(endpointId);
      return Promise.resolve(requestIds.map((id) => (byRequest?.get(id) ?? []).map((a) => ({ ...a }))));
    },
    watchForwarding(endpointId, listener) {
      forwardingWatchers.add(endpointId, listener);
      return {
        subscribed: Promise.resolve(),
        stop: () => void forwardingWatchers.remove(endpointId, listener),
      };
    },
    onReconnect() {
      return () => undefined;
    },
    close() {
      for (const set of waiters.values()) for (const w of [...set]) w();
      return Promise.resolve();
    },
  };
  function openLiveReader(): LiveReader {
    const state = { closed: false };
    const isClosed = (): boolean => state.closed;
    let stop: (() => void) | undefined;
    const collect = (cursors: ReadonlyMap<string, string>, count: number): CaptureBatches => {
      const batches: CaptureBatches = new Map();
      for (const [id, afterId] of cursors) {
        const captures = after(id, afterId, count);
        if (captures.length > 0) batches.set(id, captures);
      }
      return batches;
    };
    return {
      async read(cursors, opts) {
        if (state.closed) return new Map();
        const ready = collect(cursors, opts.count);
        if (ready.size > 0) return ready;
        await new Promise<void>((resolve) => {
          const ids = [...cursors.keys()];
          const done = (): void => {
            clearTimeout(timer);
            for (const id of ids) {
              const set = waiters.get(id);
              set?.delete(done);
              if (set?.size === 0) waiters.delete(id);
            }
            stop = undefined;
            resolve();
          };
          const timer = setTimeout(done, opts.blockMs);
          for (const id of ids) {
            const set = waiters.get(id) ?? new Set();
            waiters.set(id, set);
            set.add(done);
          }
          stop = done;
        });
        return isClosed() ? new Map() : collect(cursors, opts.count);
      },
      wake: () => stop?.(),
      close() {
        state.closed = true;
        stop?.();
      },
    };
  }
}
