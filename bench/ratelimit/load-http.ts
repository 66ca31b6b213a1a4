import { checkSample } from '../common/sample-check.js';
import type { ToolLoad } from '../common/tool-load.js';
import { createWrk } from '../common/wrk.js';
import { CLIENT_WORKLOAD } from './rls-proto.js';

/**
 * `POST /json` with `CLIENT_WORKLOAD`'s request, driven by wrk over `connections` keep-alive connections.
 * Before each run, a few `fetch` calls check the body wrk does not read: 200 with `overallCode` OK.
 */
export async function createHttpLoad(port: number, connections: number): Promise<ToolLoad> {
  const body = JSON.stringify(CLIENT_WORKLOAD.request);
  const wrk = await createWrk({
    port,
    path: '/json',
    method: 'POST',
    body: { text: body, contentType: 'application/json' },
    connections,
  });
  return {
    run: (durationMs) => wrk.run(durationMs),
    checkSample: () => checkSample(() => postOnce(port, body)),
    close: () => wrk.close(),
  };
}

async function postOnce(port: number, body: string): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}/json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) return `HTTP ${res.status}`;
  // upstream's protojson spaces its output at random: parse, never compare text
  const answer = JSON.parse(text) as { overallCode?: unknown };
  return answer.overallCode === 'OK' ? undefined : `overallCode ${String(answer.overallCode)}`;
}
