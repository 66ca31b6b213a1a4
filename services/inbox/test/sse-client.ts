import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { waitUntil } from '@portcullis/testing';

export interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** Every event so far, in order; `retry` and comments are counted apart. */
  events: SseEvent[];
  retryMs: number | undefined;
  comments: number;
  ended: boolean;
  /** The `request` events' ids so far. */
  requestIds(): string[];
  /** Waits (bounded) until `check` holds for the events received. */
  waitFor(check: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Stops reading without closing: the server's socket buffer fills up. */
  pause(): void;
  close(): void;
}

/** A minimal EventSource over node:http: headers are ours to set (`Last-Event-ID`, `Authorization`). */
export function openSse(
  url: string,
  o: { token?: string; lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseClient> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...o.headers };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.lastEventId !== undefined) headers['last-event-id'] = o.lastEventId;
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined = undefined;
    req = httpRequest(url, { headers }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        retryMs: undefined,
        comments: 0,
        ended: false,
        requestIds: () => client.events.filter((e) => e.event === 'request').map((e) => e.id ?? ''),
        waitFor: (check, timeoutMs = 5000) => waitUntil(() => check(client.events), timeoutMs),
        pause: () => res.pause(),
        close: () => req?.destroy(),
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          parseBlock(client, buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('end', () => (client.ended = true));
      res.on('close', () => (client.ended = true));
      resolve(client);
    });
    // once the stream is open, `close` resets it and rejecting no longer matters
    req.on('error', reject);
    req.end();
  });
}

function parseBlock(client: SseClient, block: string): void {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) client.comments += 1;
    else if (line.startsWith('retry: ')) client.retryMs = Number(line.slice(7));
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length > 0) {
    client.events.push({ ...(id === undefined ? {} : { id }), event, data: JSON.parse(data.join('\n')) });
  }
}
