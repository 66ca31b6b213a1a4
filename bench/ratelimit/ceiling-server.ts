// The ceiling: an empty grpc-js server and an empty fastify route with the service's protocol and answer
// shape, run in its own process like the service. Prints `{"grpcPort":…,"httpPort":…}` once listening.
import { Server, ServerCredentials, type sendUnaryData } from '@grpc/grpc-js';
import Fastify from 'fastify';
import { CEILING_RESPONSE, loadRateLimitService } from './rls-proto.js';

const grpc = new Server();
grpc.addService(loadRateLimitService().service, {
  ShouldRateLimit(_call: unknown, callback: sendUnaryData<object>) {
    callback(null, CEILING_RESPONSE);
  },
});
const grpcPort = await new Promise<number>((resolve, reject) =>
  grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, port) =>
    err ? reject(err) : resolve(port),
  ),
);

const http = Fastify({ logger: false });
http.post('/json', () => Promise.resolve(CEILING_RESPONSE));
await http.listen({ host: '127.0.0.1', port: 0 });
const address = http.server.address();
const httpPort = typeof address === 'object' && address ? address.port : 0;

process.stdout.write(`${JSON.stringify({ grpcPort, httpPort })}\n`);
