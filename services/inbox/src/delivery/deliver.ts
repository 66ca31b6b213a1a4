import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ForwardRequest } from './forward-request.js';

export type DeliveryResult =
  | { kind: 'answered'; status: number; retryAfter?: string }
  | { kind: 'failed'; error: string }
  | { kind: 'aborted' };

/** How an https target's certificate is checked; without it, against the system roots. */
export interface TargetTls {
  ca?: string[];
  rejectUnauthorized: boolean;
}

export interface DeliverOptions {
  /** The address the egress policy checked: the connection goes there, whatever DNS says now. */
  pinned: { address: string; family: 4 | 6 };
  timeoutMs: number;
  /** Ends the delivery early (`aborted`); without it, the delivery runs to its answer or timeout. */
  signal?: AbortSignal;
  /** Connections kept open between deliveries; without it, one connection per delivery. */
  keepAlive?: KeepAlive | undefined;
  /** For the CLI's own targets (`--ca`, `--insecure`); the worker keeps the default. */
  tls?: TargetTls | undefined;
}

/** Open connections to targets, reused by later deliveries to the same host and port. */
export interface KeepAlive {
  http: HttpAgent;
  https: HttpsAgent;
  close(): void;
}

/**
 * For a worker, whose targets usually get many deliveries in a row. An idle connection is closed after 4 s,
 * before the 5 s after which common servers (Node's among them) close theirs, so a reused one is rarely one
 * the server is closing; one that was is retried once on a new connection. A reused connection goes to an
 * address the egress policy allowed when it was opened. Up to `maxIdle` idle connections are kept per
 * target: as many as the worker's deliveries at once, since a connection closed for want of room is opened
 * again by the next burst (a connect and a close per few deliveries, under load).
 */
export function createKeepAlive(o: { maxIdle: number }): KeepAlive {
  const options = { keepAlive: true, timeout: 4000, maxFreeSockets: o.maxIdle };
  const http = new HttpAgent(options);
  const https = new HttpsAgent(options);
  return {
    http,
    https,
    close() {
      http.destroy();
      https.destroy();
    },
  };
}

/** The most of a response body read (and discarded) before the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends one request with node:http(s) and the flat header array, so nothing is added, merged or reordered
 * (fetch would); `Connection` ends it, saying whether the connection stays open. No redirects are followed
 * and nothing is decompressed. Never rejects.
 */
export async function deliver(req: ForwardRequest, o: DeliverOptions): Promise<DeliveryResult> {
  const first = await send(req, o, o.keepAlive);
  // the server closed a kept connection as it was reused: nothing reached it, so a new connection is safe
  if (first.kind === 'failed' && first.staleConnection) return send(req, o, undefined);
  return first.kind === 'failed' ? { kind: 'failed', error: first.error } : first;
}

type SendResult =
  Exclude<DeliveryResult, { kind: 'failed' }> | { kind: 'failed'; error: string; staleConnection: boolean };

function send(req: ForwardRequest, o: DeliverOptions, keepAlive: KeepAlive | undefined): Promise<SendResult> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [o.pinned]);
    else callback(null, o.pinned.address, o.pinned.family);
  };
  const https = req.url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  const agent = keepAlive ? (https ? keepAlive.https : keepAlive.http) : false;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };
    let client: ClientRequest;
    try {
      client = request(
        {
          protocol: req.url.protocol,
          host: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: req.url.port,
          method: req.method,
          path: req.path,
          headers: [...req.rawHeaders, 'Connection', keepAlive ? 'keep-alive' : 'close'],
          lookup,
          agent,
          ...(https ? o.tls : undefined),
        },
        (res: IncomingMessage) => {
          const retryAfter = res.headers['retry-after'];
          let readBytes = 0;
          res.on('data', (chunk: Buffer) => {
            readBytes += chunk.length;
            if (readBytes > MAX_RESPONSE_BYTES) res.destroy();
          });
          res.on('error', () => undefined); // the status is what counts
          finish({ kind: 'answered', status: res.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) });
        },
      );
    } catch {
      // node:http refuses to write the request (buildForwardRequest checks what it knows of): nothing was sent
      resolve({
        kind: 'failed',
        error: 'not sent: the request could not be written',
        staleConnection: false,
      });
      return;
    }
    const timer = setTimeout(() => {
      client.destroy();
      finish({ kind: 'failed', error: `no answer within ${o.timeoutMs} ms`, staleConnection: false });
    }, o.timeoutMs);
    const onAbort = (): void => {
      client.destroy();
      finish({ kind: 'aborted' });
    };
    o.signal?.addEventListener('abort', onAbort);
    if (o.signal?.aborted) onAbort();
    client.on('error', (err: NodeJS.ErrnoException) => {
      finish({
        kind: 'failed',
        // the code only: the message names the address connected to, which the caller must not learn
        error: err.code ? `connection failed (${err.code})` : 'connection failed',
        // once answered the result is settled, so an error here means nothing came back
        staleConnection: client.reusedSocket && err.code === 'ECONNRESET',
      });
    });
    client.end(req.body);
  });
}
