import { Agent, request } from 'node:http';
import type { Call } from './drive.js';
import { buildRequest, CLIENT_COUNT } from './rls-proto.js';

export interface HttpLoad {
  call: Call;
  close(): void;
}

/**
 * `POST /json` over keep-alive connections, at most `maxSockets` of them. A right answer is 200 with
 * `"overallCode":"OK"` in the body.
 */
export function createHttpLoad(port: number, maxSockets: number): HttpLoad {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const bodies = Array.from({ length: CLIENT_COUNT }, (_, i) => Buffer.from(JSON.stringify(buildRequest(i))));
  const call: Call = (i) =>
    new Promise((resolve) => {
      const body = bodies[i % bodies.length]!;
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/json',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (err) => resolve(`HTTP response ${err.message}`));
          res.on('end', () => {
            if (res.statusCode !== 200) resolve(`HTTP ${res.statusCode ?? 'no status'}`);
            else if (!Buffer.concat(chunks).toString().includes('"overallCode":"OK"'))
              resolve('HTTP 200 without "overallCode":"OK"');
            else resolve(undefined);
          });
        },
      );
      req.on('error', (err) => resolve(`HTTP request ${err.message}`));
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}
