import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import type { Load } from './measure.js';

export interface HttpLoadOptions {
  port: number;
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  /** Request bodies, call `i` sending `bodies[i % length]`; none for requests without a body. */
  bodies?: readonly Buffer[];
  /** Judges the body of a 2xx answer: `undefined` when right, else a short label of what was wrong. */
  check: (body: string) => string | undefined;
  /** Keep-alive connections to 127.0.0.1:`port`, at most. */
  maxSockets: number;
}

const ERROR_BODY_CHARS = 60;

/**
 * HTTP requests to 127.0.0.1 over keep-alive connections. A non-2xx answer is wrong, labelled with its
 * status and the start of its body; a 2xx one is judged by `check`.
 */
export function createHttpLoad(o: HttpLoadOptions): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: o.maxSockets });
  const bodies = o.bodies ?? [];
  const call = (i: number): Promise<string | undefined> =>
    new Promise((resolve) => {
      const body = bodies[i % bodies.length];
      const headers = body ? { ...o.headers, 'content-length': body.length } : o.headers;
      const req = request(
        { agent, host: '127.0.0.1', port: o.port, method: o.method, path: o.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (err) => resolve(`HTTP response ${err.message}`));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) resolve(`HTTP ${status} ${text.slice(0, ERROR_BODY_CHARS)}`);
            else resolve(o.check(text));
          });
        },
      );
      req.on('error', (err) => resolve(`HTTP request ${err.message}`));
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}

/** A `check` accepting exactly `expected`. */
export function isExactly(expected: string): (body: string) => string | undefined {
  return (body) => (body === expected ? undefined : `unexpected body ${body.slice(0, ERROR_BODY_CHARS)}`);
}
