import { checkSample } from '../common/sample-check.js';
import type { ToolLoad } from '../common/tool-load.js';
import { createWrk } from '../common/wrk.js';

export interface PostLoadOptions {
  port: number;
  path: string;
  /** A JSON body, sent with every request. */
  body: Buffer;
  /** Keep-alive connections, one request in flight on each. */
  connections: number;
  /** Judges the body of a 2xx answer: `undefined` when right, else a short label of what was wrong. */
  check: (body: string) => string | undefined;
}

/**
 * `POST` of `body` driven by wrk. Before each run a few `fetch` calls check what wrk does not read: a 2xx
 * status and a body `check` accepts.
 */
export async function createPostLoad(o: PostLoadOptions): Promise<ToolLoad> {
  const wrk = await createWrk({
    port: o.port,
    path: o.path,
    method: 'POST',
    body: { text: o.body.toString(), contentType: 'application/json' },
    connections: o.connections,
  });
  const postOnce = async (): Promise<string | undefined> => {
    const res = await fetch(`http://127.0.0.1:${o.port}${o.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: o.body,
    });
    const text = await res.text();
    return res.ok ? o.check(text) : `HTTP ${res.status} ${text.slice(0, 60)}`;
  };
  return {
    run: (durationMs) => wrk.run(durationMs),
    checkSample: () => checkSample(postOnce),
    close: () => wrk.close(),
  };
}
