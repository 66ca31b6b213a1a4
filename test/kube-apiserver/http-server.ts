import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@portcullis/kit';
import type { ApiContext } from './context.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  DISCOVERY_V2_CONTENT_TYPE,
  versionInfo,
} from './discovery.js';
import { ApiError, internalError, pathNotFound } from './errors.js';
import type { FaultInjector } from './faults.js';
import { openApiDocumentForPath, openApiIndex } from './openapi.js';
import { handleResource, type Reply } from './resource-handler.js';
import { parseRoute } from './routes.js';
import { negotiate } from './table.js';
import type { WatchHub } from './watch.js';

/** The HTTP front: body reading, fault injection, routing, and Status bodies for every failure. */

export interface RequestRecord {
  method: string;
  /** Path and query. */
  url: string;
  status: number;
  durationMs: number;
}

export interface HttpDeps {
  ctx: ApiContext;
  hub: WatchHub;
  faults: FaultInjector;
  log: Logger | undefined;
  requests: RequestRecord[];
}

const MAX_BODY_BYTES = 3 * 1024 * 1024;
const MAX_REQUEST_RECORDS = 10_000;

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Records the request once: at the end of a plain response, at the start of a watch stream. */
  recordOnce: () => void;
}

export function createRequestHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://kube-apiserver.invalid');
    let recorded = false;
    const recordOnce = (): void => {
      if (recorded) return;
      recorded = true;
      record(deps, { method, url: url.pathname + url.search, status: res.statusCode, started });
    };
    res.on('finish', recordOnce);
    res.on('close', recordOnce);
    handle(deps, { req, res, url, recordOnce }).catch((e: unknown) => {
      const error = e instanceof ApiError ? e : internalError(e instanceof Error ? e.message : String(e));
      if (!(e instanceof ApiError)) deps.log?.error({ err: e, method, path: url.pathname }, 'request failed');
      if (res.headersSent) res.destroy();
      else sendJson(res, { status: error.code, body: error.toStatus() });
    });
  };
}

function record(
  deps: HttpDeps,
  entry: { method: string; url: string; status: number; started: number },
): void {
  const durationMs = Math.round((performance.now() - entry.started) * 100) / 100;
  deps.requests.push({ method: entry.method, url: entry.url, status: entry.status, durationMs });
  if (deps.requests.length > MAX_REQUEST_RECORDS) deps.requests.shift();
  deps.log?.debug({ method: entry.method, path: entry.url, status: entry.status, durationMs }, 'request');
}

async function handle(deps: HttpDeps, exchange: Exchange): Promise<void> {
  const { req, res, url } = exchange;
  const method = req.method ?? 'GET';
  const body = await readBody(req);
  const delayMs = deps.faults.takeDelayMs(method, url);
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  const fault = deps.faults.takeFailure(method, url);
  if (fault) throw fault;
  const { registry } = deps.ctx;
  const accept = req.headers.accept;
  const route = parseRoute(url.pathname);
  const reply = (found: Record<string, unknown> | undefined, contentType?: string): void => {
    if (!found) throw pathNotFound();
    sendJson(res, { status: 200, body: found, contentType });
  };
  switch (route.kind) {
    case 'version':
      return reply(versionInfo());
    case 'health':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' }).end('ok');
      return;
    case 'core-versions':
      if (negotiate(accept) === 'discovery-v2')
        return reply(aggregatedDiscovery(registry, true), DISCOVERY_V2_CONTENT_TYPE);
      return reply(apiVersions(req.headers.host ?? '127.0.0.1'));
    case 'group-list':
      if (negotiate(accept) === 'discovery-v2')
        return reply(aggregatedDiscovery(registry, false), DISCOVERY_V2_CONTENT_TYPE);
      return reply(apiGroupList(registry));
    case 'group':
      return reply(apiGroup(registry, route.group));
    case 'resource-list':
      return reply(apiResourceList(registry, route.group, route.version));
    case 'openapi-v3-index':
      return reply(openApiIndex(registry));
    case 'openapi-v3-document':
      return reply(openApiDocumentForPath(registry, url.pathname));
    case 'resource': {
      const request = { method, url, headers: req.headers, body };
      const result = handleResource({ ctx: deps.ctx, hub: deps.hub }, route.path, request, res);
      if (result) sendJson(res, result);
      else exchange.recordOnce();
      return;
    }
    case 'unknown':
      throw pathNotFound();
    default: {
      const _exhaustive: never = route;
      return _exhaustive;
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) {
      throw new ApiError(
        413,
        'RequestEntityTooLarge',
        `Request entity too large: limit is ${MAX_BODY_BYTES}`,
      );
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string | string[]> = {
    'Content-Type': reply.contentType ?? 'application/json',
    'Cache-Control': 'no-cache, private',
  };
  if (reply.warnings?.length) headers['Warning'] = reply.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
}
