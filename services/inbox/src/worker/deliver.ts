import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ForwardRequest } from './forward-request.js';

export type DeliveryResult =
  | { kind: 'answered'; status: number; retryAfter?: string }
  | { kind: 'failed'; error: string }
  | { kind: 'aborted' };

export interface DeliverOptions {
  /** The address the egress policy checked: the connection goes there, whatever DNS says now. */
  pinned: { address: string; family: 4 | 6 };
  timeoutMs: number;
  signal: AbortSignal;
}

/** The most of a response body read (and discarded) before the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends one request with node:http(s) and the flat header array, so nothing is added, merged or reordered
 * (fetch would). No redirects are followed and nothing is decompressed. Never rejects.
 */
export function deliver(req: ForwardRequest, o: DeliverOptions): Promise<DeliveryResult> {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [o.pinned]);
    else callback(null, o.pinned.address, o.pinned.family);
  };
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: DeliveryResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const client: ClientRequest = send(
      {
        protocol: req.url.protocol,
        host: req.url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: req.url.port,
        method: req.method,
        path: req.path,
        headers: req.rawHeaders,
        lookup,
        agent: false,
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
    const timer = setTimeout(() => {
      client.destroy();
      finish({ kind: 'failed', error: `no answer within ${o.timeoutMs} ms` });
    }, o.timeoutMs);
    const onAbort = (): void => {
      client.destroy();
      finish({ kind: 'aborted' });
    };
    o.signal.addEventListener('abort', onAbort);
    if (o.signal.aborted) onAbort();
    client.on('error', (err: NodeJS.ErrnoException) => {
      finish({ kind: 'failed', error: err.code ? `${err.code}: ${err.message}` : err.message });
    });
    client.end(req.body);
  });
}
