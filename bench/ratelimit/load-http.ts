import { createHttpLoad as createKeepAliveLoad } from '../common/http-load.js';
import type { Load } from '../common/measure.js';
import { SPREAD_WORKLOAD } from './rls-proto.js';

/**
 * `POST /json` over keep-alive connections, at most `maxSockets` of them. A right answer is 2xx with
 * `"overallCode":"OK"` in the body.
 */
export function createHttpLoad(port: number, maxSockets: number): Load {
  return createKeepAliveLoad({
    port,
    method: 'POST',
    path: '/json',
    headers: { 'content-type': 'application/json' },
    bodies: SPREAD_WORKLOAD.requests.map((r) => Buffer.from(JSON.stringify(r))),
    check: (body) =>
      body.includes('"overallCode":"OK"') ? undefined : 'HTTP 200 without "overallCode":"OK"',
    maxSockets,
  });
}
