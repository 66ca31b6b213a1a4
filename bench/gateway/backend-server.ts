// The upstream backend: a tiny node:http server answering every request with `PONG_BODY`, in its own
// process. Prints `{"port":…}` once listening.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PONG_BODY } from './api-route.js';

const body = Buffer.from(PONG_BODY);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
