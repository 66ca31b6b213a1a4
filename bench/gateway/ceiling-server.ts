// The ceiling: a bare fastify app, in its own process like the gateway, answering each measured route with
// the gateway's body (`/api/test` with BENCH_TEST_BODY, the JSON the gateway answers the bench user).
// Prints `{"port":…}` once listening.
import Fastify from 'fastify';
import { PONG_BODY, ROUTE_PREFIX } from './api-route.js';

const pong = JSON.parse(PONG_BODY) as object;
const testBody = JSON.parse(process.env.BENCH_TEST_BODY ?? '{}') as object;

const app = Fastify({ logger: false });
app.get('/api/ping', () => Promise.resolve(pong));
app.get('/api/test', () => Promise.resolve(testBody));
app.get(`/api/${ROUTE_PREFIX}/limited`, () => Promise.resolve(pong));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
