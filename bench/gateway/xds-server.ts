// The gateway's management server in the bench, in its own process: an xDS state-of-the-world server
// holding the one ApiRoute of `api-route.ts`, its backend on port BENCH_BACKEND_PORT. Prints
// `{"port":…}` once listening.
import { createLogger } from '@portcullis/kit';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { createSotwServer } from '@portcullis/xds';
import { API_ROUTE_NAME, API_ROUTE_TYPE, buildApiRoute } from './api-route.js';

const backendPort = Number(process.env.BENCH_BACKEND_PORT);
if (!Number.isInteger(backendPort) || backendPort <= 0) {
  throw new Error(`BENCH_BACKEND_PORT="${process.env.BENCH_BACKEND_PORT ?? ''}": expected a port`);
}
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const server = createSotwServer({
  host: '127.0.0.1',
  port: 0,
  log: createLogger({ level: 'warn', format: 'json' }),
});
server.setResources(API_ROUTE_TYPE, [
  { name: API_ROUTE_NAME, value: codec.encode(buildApiRoute(backendPort)) },
]);
await server.start();
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
