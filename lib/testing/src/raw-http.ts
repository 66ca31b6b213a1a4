import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface HttpRequestSpec {
  method: string;
  /** Sent as written: no dot segments resolved, no encoding applied. */
  path: string;
  /** A record, or flat `[name, value, …]` to send names twice or in a given case. */
  headers?: OutgoingHttpHeaders | string[];
  body?: Buffer | string;
}

export interface HttpClient {
  send(spec: HttpRequestSpec): Promise<HttpAnswer>;
  close(): void;
}

/**
 * A node:http client of one loopback port over keep-alive connections: thousands of requests without a
 * handshake each. Paths and headers go out as given; node:http still refuses what no HTTP/1.1 request can
 * carry (a space in the path, a CR in a header), which `sendRawBytes` sends instead.
 */
export function createHttpClient(port: number): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  return {
    send: (spec) =>
      new Promise((resolve, reject) => {
        const body = typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body;
        // node:http sends a GET's body without framing; a length of its own keeps the connection in step
        const headers =
          body === undefined || Array.isArray(spec.headers)
            ? (spec.headers ?? {})
            : { 'content-length': String(body.length), ...spec.headers };
        const req = request(
          {
            host: '127.0.0.1',
            port,
            agent,
            method: spec.method,
            path: spec.path,
            headers,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('latin1'),
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

/** Every status line in `text`, in order (pipelined requests get one answer each). */
function readStatuses(text: string): number[] {
  return [...text.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
}

export interface RawAnswer {
  /** One status per answer on the connection; empty when the server closed without answering. */
  statuses: number[];
  /** Everything the server wrote, as latin1 text. */
  text: string;
}

/**
 * Writes `bytes` on a fresh connection, half-closes it (unless `halfClose` is false: a request whose answer
 * comes before its body ends) and collects what the server writes until it closes. For requests no HTTP
 * client would send: bad request lines, control characters, smuggling shapes, bodies that do not end.
 * Rejects when the server neither answers nor closes within `timeoutMs` (5 s).
 */
export function sendRawBytes(
  port: number,
  bytes: Buffer | string,
  { timeoutMs = 5000, halfClose = true }: { timeoutMs?: number; halfClose?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ statuses: readStatuses(text), text });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', done);
    // a reset after the server answered (it closes on a parse error) still leaves the answer to read
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(bytes);
      if (halfClose) socket.end();
    });
  });
}
