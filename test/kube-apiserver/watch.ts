import type { ServerResponse } from 'node:http';
import { toServed, type ApiContext } from './context.js';
import { badRequest, expired, type ApiError } from './errors.js';
import { isSelected, selectStored, type Selection } from './read-ops.js';
import { toTable, type IncludeObject } from './table.js';
import type { JsonObject, KubeObject, ResourceDef, StoreEvent } from './types.js';

/** NDJSON watch streams fed by the store, replaying from its bounded history. */

export interface WatchRequest {
  def: ResourceDef;
  /** Undefined watches every namespace. */
  namespace: string | undefined;
  selection: Selection;
  resourceVersion: string | null;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutMs: number | undefined;
  representation: 'json' | 'table' | 'partial-metadata';
  includeObject: IncludeObject;
}

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
  /** `event`: 200 then an ERROR event with a 410 Status (the usual form); `http`: a plain 410 response. */
  expiredWatchAs: 'event' | 'http';
}

interface Stream {
  res: ServerResponse;
  queue: string[] | undefined;
  close: () => void;
}

export class WatchHub {
  private readonly streams = new Set<Stream>();
  private paused = false;

  constructor(
    private readonly ctx: ApiContext,
    private readonly opts: WatchHubOptions,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  /** Starts a stream, or throws an ApiError the caller answers before any header is sent. */
  serve(req: WatchRequest, res: ServerResponse): void {
    const { store } = this.ctx;
    const start = startingEvents(this.ctx, req);
    if ('error' in start && this.opts.expiredWatchAs === 'http') throw start.error;
    res.writeHead(200, { 'Content-Type': contentType(req), 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const stream: Stream = { res, queue: this.paused ? [] : undefined, close: () => undefined };
    const send = (type: string, object: unknown): void =>
      this.write(stream, JSON.stringify({ type, object }) + '\n');
    if ('error' in start) {
      send('ERROR', start.error.toStatus());
      res.end();
      return;
    }
    const unsubscribe = store.subscribe((event) => {
      const translated = translate(event, req);
      if (translated) send(translated.type, render(this.ctx, req, translated.object));
    });
    const timers: NodeJS.Timeout[] = [];
    stream.close = () => {
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      this.streams.delete(stream);
    };
    this.streams.add(stream);
    res.on('close', stream.close);
    for (const e of start.events) send(e.type, render(this.ctx, req, e.object));
    const bookmark = (annotations?: Record<string, string>): void =>
      send('BOOKMARK', bookmarkObject(req.def, String(store.revision), annotations));
    if (req.sendInitialEvents && req.allowBookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    if (req.allowBookmarks) timers.push(setInterval(() => bookmark(), this.opts.bookmarkIntervalMs));
    if (req.timeoutMs !== undefined) timers.push(setTimeout(() => res.end(), req.timeoutMs));
  }

  /** Ends every stream: `graceful` finishes the response, `abrupt` destroys the socket mid-stream. */
  drop(mode: 'graceful' | 'abrupt'): number {
    const streams = [...this.streams];
    for (const s of streams) {
      s.close();
      if (mode === 'abrupt') s.res.destroy();
      else s.res.end();
    }
    return streams.length;
  }

  /** Holds events back until `resume()`, as a stalled connection would. */
  pause(): void {
    this.paused = true;
    for (const s of this.streams) s.queue ??= [];
  }

  resume(): void {
    this.paused = false;
    for (const s of this.streams) {
      const queued = s.queue ?? [];
      s.queue = undefined;
      for (const line of queued) s.res.write(line);
    }
  }

  private write(stream: Stream, line: string): void {
    if (stream.queue) stream.queue.push(line);
    else stream.res.write(line);
  }
}

type Start = { events: { type: string; object: KubeObject }[] } | { error: ApiError };

function startingEvents(ctx: ApiContext, req: WatchRequest): Start {
  const { store } = ctx;
  const rv = req.resourceVersion;
  if (!rv || rv === '0' || req.sendInitialEvents) {
    const objects = selectStored(ctx, req.def, req.namespace, req.selection);
    return { events: objects.map((object) => ({ type: 'ADDED', object })) };
  }
  const from = Number(rv);
  if (!Number.isInteger(from) || from < 0)
    throw badRequest(`invalid resource version: strconv.ParseUint: parsing "${rv}": invalid syntax`);
  const history = store.eventsSince(from);
  if (!history) return { error: expired(`too old resource version: ${from} (${store.floor + 1})`) };
  const events: { type: string; object: KubeObject }[] = [];
  for (const event of history) {
    const translated = translate(event, req);
    if (translated) events.push(translated);
  }
  return { events };
}

/**
 * What one watcher sees of a store event: updates that move an object into or out of its
 * namespace and selectors become ADDED or DELETED, as the watch cache reports them.
 */
function translate(event: StoreEvent, req: WatchRequest): { type: string; object: KubeObject } | undefined {
  if (event.storageKey !== req.def.storageKey) return undefined;
  const inScope = (obj: KubeObject | undefined): boolean =>
    obj !== undefined &&
    (req.namespace === undefined || (obj.metadata.namespace ?? '') === req.namespace) &&
    isSelected(req.selection, obj);
  const now = inScope(event.object);
  switch (event.type) {
    case 'ADDED':
      return now ? { type: 'ADDED', object: event.object } : undefined;
    case 'DELETED':
      return now ? { type: 'DELETED', object: event.object } : undefined;
    case 'MODIFIED': {
      const before = inScope(event.previous);
      if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: event.object };
      return before ? { type: 'DELETED', object: event.object } : undefined;
    }
    default: {
      const _exhaustive: never = event.type;
      return _exhaustive;
    }
  }
}

function render(ctx: ApiContext, req: WatchRequest, stored: KubeObject): unknown {
  const served = toServed(req.def, stored);
  switch (req.representation) {
    case 'json':
      return served;
    case 'partial-metadata':
      return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: served.metadata };
    case 'table':
      return toTable(req.def, [served], {
        listMetadata: { resourceVersion: served.metadata.resourceVersion },
        includeObject: req.includeObject,
        nowMs: ctx.now(),
      });
    default: {
      const _exhaustive: never = req.representation;
      return _exhaustive;
    }
  }
}

function bookmarkObject(
  def: ResourceDef,
  resourceVersion: string,
  annotations?: Record<string, string>,
): JsonObject {
  const metadata: JsonObject = { resourceVersion };
  if (annotations) metadata['annotations'] = annotations;
  return { kind: def.kind, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, metadata };
}

function contentType(req: WatchRequest): string {
  if (req.representation === 'table') return 'application/json;as=Table;v=v1;g=meta.k8s.io';
  return 'application/json';
}
