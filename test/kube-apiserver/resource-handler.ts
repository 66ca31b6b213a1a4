import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { getCurrent, type ApiContext, type Target, type WriteOptions } from './context.js';
import { deleteMatching, deleteObject, type DeleteOptions } from './delete-ops.js';
import { badRequest, methodNotAllowed, pathNotFound, unsupportedMediaType } from './errors.js';
import { patchTypeOf } from './patch.js';
import { listItem, listObjects, parseSelection, selectStored, type ListQuery } from './read-ops.js';
import type { ResourcePath } from './routes.js';
import { negotiate, toTable, type IncludeObject } from './table.js';
import { isJsonObject, type JsonObject, type KubeObject, type ResourceDef } from './types.js';
import type { WatchHub } from './watch.js';
import { createObject, patchObject, replaceObject } from './write-ops.js';

/** Maps a verb on `/…/<plural>[/<name>[/status]]` to an operation and shapes its reply. */

export interface Reply {
  status: number;
  body: unknown;
  contentType?: string;
  warnings?: string[];
}

export interface ResourceRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Deps {
  ctx: ApiContext;
  hub: WatchHub;
}

const TABLE_CONTENT_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** Returns the reply, or undefined when a watch stream has taken over the response. */
export function handleResource(
  deps: Deps,
  path: ResourcePath,
  req: ResourceRequest,
  res: ServerResponse,
): Reply | undefined {
  const def = deps.ctx.registry.find(path.group, path.version, path.plural);
  if (!def) throw pathNotFound();
  if (path.subresource !== undefined && (path.subresource !== 'status' || !def.hasStatus))
    throw pathNotFound();
  if (path.namespace !== undefined && !def.namespaced) throw pathNotFound();
  if (path.name !== undefined && def.namespaced && path.namespace === undefined) throw pathNotFound();
  const params = req.url.searchParams;
  const isWatch = path.watchPrefix || params.get('watch') === 'true' || params.get('watch') === '1';
  const target: Target = {
    def,
    namespace: path.namespace ?? '',
    name: path.name ?? '',
    subresource: path.subresource === 'status' ? 'status' : undefined,
  };
  const opts = writeOptions(params);
  const done = (status: number, body: unknown): Reply => ({ status, body, warnings: opts.warnings });
  switch (req.method) {
    case 'GET':
      if (isWatch) {
        startWatch(deps, { def, path, req }, res);
        return undefined;
      }
      return path.name === undefined ? list(deps.ctx, def, path.namespace, req) : get(deps.ctx, target, req);
    case 'POST':
      if (path.name !== undefined) throw methodNotAllowed(req.method);
      if (def.namespaced && path.namespace === undefined) throw pathNotFound();
      return done(201, createObject(deps.ctx, target, decodeBody(req), opts));
    case 'PUT':
      requireName(path);
      return done(200, replaceObject(deps.ctx, target, decodeBody(req), opts));
    case 'PATCH': {
      requireName(path);
      const patch = { type: patchTypeOf(req.headers['content-type'], def.isCustom), body: req.body };
      return done(200, patchObject(deps.ctx, target, patch, opts));
    }
    case 'DELETE': {
      if (path.subresource) throw methodNotAllowed(req.method);
      const options = deleteOptions(req);
      if (path.name !== undefined) return done(200, deleteObject(deps.ctx, target, options));
      const selection = parseSelection(def, {
        labelSelector: params.get('labelSelector'),
        fieldSelector: params.get('fieldSelector'),
      });
      const victims = selectStored(deps.ctx, def, path.namespace, selection);
      const items = deleteMatching(
        deps.ctx,
        def,
        victims.map((v) => listItem(def, v)),
      );
      return done(200, { apiVersion: apiVersionOf(def), kind: def.listKind, metadata: {}, items });
    }
    default:
      throw methodNotAllowed(req.method);
  }
}

function requireName(path: ResourcePath): void {
  if (path.name === undefined) throw methodNotAllowed('collection');
}

function apiVersionOf(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

function writeOptions(params: URLSearchParams): WriteOptions {
  const directive = params.get('fieldValidation') ?? 'Warn';
  if (directive !== 'Strict' && directive !== 'Warn' && directive !== 'Ignore') {
    throw badRequest(`fieldValidation parameter unsupported: ${directive}`);
  }
  return { dryRun: params.getAll('dryRun').includes('All'), fieldValidation: directive, warnings: [] };
}

function decodeBody(req: ResourceRequest): unknown {
  const media = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim() ?? '';
  try {
    if (media === 'application/json' || media === '') return JSON.parse(req.body) as unknown;
    if (media === 'application/yaml') return parseYaml(req.body) as unknown;
  } catch (e: unknown) {
    throw badRequest(
      `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  throw unsupportedMediaType(['application/json', 'application/yaml']);
}

function deleteOptions(req: ResourceRequest): DeleteOptions {
  const params = req.url.searchParams;
  let body: JsonObject = {};
  if (req.body.trim()) {
    const parsed = decodeBody(req);
    if (isJsonObject(parsed)) body = parsed;
  }
  const dryRun = Array.isArray(body['dryRun']) ? (body['dryRun'] as unknown[]) : params.getAll('dryRun');
  const preconditions = isJsonObject(body['preconditions']) ? body['preconditions'] : {};
  return {
    dryRun: dryRun.includes('All'),
    preconditions: {
      uid: typeof preconditions['uid'] === 'string' ? preconditions['uid'] : undefined,
      resourceVersion:
        typeof preconditions['resourceVersion'] === 'string' ? preconditions['resourceVersion'] : undefined,
    },
  };
}

function includeObjectOf(params: URLSearchParams): IncludeObject {
  const value = params.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

function get(ctx: ApiContext, target: Target, req: ResourceRequest): Reply {
  const obj = getCurrent(ctx, target);
  return represent(ctx, target.def, [obj], {
    req,
    single: true,
    listMetadata: { resourceVersion: obj.metadata.resourceVersion },
  });
}

function list(ctx: ApiContext, def: ResourceDef, namespace: string | undefined, req: ResourceRequest): Reply {
  const params = req.url.searchParams;
  const limit = params.get('limit');
  const query: ListQuery = {
    labelSelector: params.get('labelSelector'),
    fieldSelector: params.get('fieldSelector'),
    limit: limit === null ? undefined : Number(limit),
    continueToken: params.get('continue'),
  };
  const result = listObjects(ctx, def, namespace, query);
  const representation = negotiate(req.headers.accept);
  if (representation === 'json') return { status: 200, body: result };
  const items = (result['items'] as KubeObject[]).map((item) => ({
    ...item,
    apiVersion: apiVersionOf(def),
    kind: def.kind,
  }));
  return represent(ctx, def, items, { req, single: false, listMetadata: result.metadata });
}

interface RepresentOptions {
  req: ResourceRequest;
  single: boolean;
  listMetadata: JsonObject;
}

function represent(ctx: ApiContext, def: ResourceDef, objects: KubeObject[], o: RepresentOptions): Reply {
  switch (negotiate(o.req.headers.accept)) {
    case 'table': {
      const options = {
        listMetadata: o.listMetadata,
        includeObject: includeObjectOf(o.req.url.searchParams),
        nowMs: ctx.now(),
      };
      return { status: 200, body: toTable(def, objects, options), contentType: TABLE_CONTENT_TYPE };
    }
    case 'partial-metadata': {
      const partial = objects.map((obj) => ({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: obj.metadata,
      }));
      const body = o.single
        ? partial[0]
        : {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: o.listMetadata,
            items: partial,
          };
      return {
        status: 200,
        body,
        contentType: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
      };
    }
    case 'json':
    case 'discovery-v2':
      return { status: 200, body: objects[0] };
    default:
      throw pathNotFound();
  }
}

interface WatchTarget {
  def: ResourceDef;
  path: ResourcePath;
  req: ResourceRequest;
}

function startWatch(deps: Deps, w: WatchTarget, res: ServerResponse): void {
  const params = w.req.url.searchParams;
  let fieldSelector = params.get('fieldSelector');
  if (w.path.name !== undefined) {
    const byName = `metadata.name=${w.path.name}`;
    fieldSelector = fieldSelector ? `${fieldSelector},${byName}` : byName;
  }
  const timeout = params.get('timeoutSeconds');
  const representation = negotiate(w.req.headers.accept);
  deps.hub.serve(
    {
      def: w.def,
      namespace: w.path.namespace,
      selection: parseSelection(w.def, { labelSelector: params.get('labelSelector'), fieldSelector }),
      resourceVersion: params.get('resourceVersion'),
      allowBookmarks: params.get('allowWatchBookmarks') === 'true',
      sendInitialEvents: params.get('sendInitialEvents') === 'true',
      timeoutMs: timeout === null ? undefined : Number(timeout) * 1000,
      representation:
        representation === 'table' || representation === 'partial-metadata' ? representation : 'json',
      includeObject: includeObjectOf(params),
    },
    res,
  );
}
