// The ceiling: a bare fastify app, in its own process like the gateway, answering each measured route with
// the gateway's body (`/api/test` with BENCH_TEST_BODY, the JSON the gateway answers the bench user). With
// BENCH_PROCESSES > 1 it serves from that many node:cluster workers on BENCH_PORT, as the gateway does with
// GATEWAY_WORKERS. Prints `{"port":…}` once every process listens.
import cluster from 'node:cluster';
import Fastify from 'fastify';
import { PONG_BODY, ROUTE_PREFIX } from './api-route.js';

const processes = Number(process.env.BENCH_PROCESSES ?? '1');
const port = Number(process.env.BENCH_PORT ?? '0');
const announce = (bound: number): boolean => process.stdout.write(`${JSON.stringify({ port: bound })}\n`);

if (cluster.isPrimary && processes > 1) {
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork().once('listening', () => {
      if (++listening === processes) announce(port);
    });
  }
} else {
  const pong = JSON.parse(PONG_BODY) as object;
  const testBody = JSON.parse(process.env.BENCH_TEST_BODY ?? '{}') as object;
  const app = Fastify({ logger: false });
  app.get('/api/ping', () => Promise.resolve(pong));
  app.get('/api/test', () => Promise.resolve(testBody));
  app.get(`/api/${ROUTE_PREFIX}/limited`, () => Promise.resolve(pong));
  await app.listen({ host: '127.0.0.1', port });
  const address = app.server.address();
  if (cluster.isPrimary) announce(typeof address === 'object' && address ? address.port : 0);
}
