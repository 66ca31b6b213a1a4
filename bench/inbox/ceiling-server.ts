// The ceiling: a bare fastify app in its own process, like the inbox, answering a POST with the body the
// inbox answers a capture with. Prints `{"port":…}` once listening.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/api/hook/:id', () => Promise.resolve({ ok: true, requestId: '1700000000000-0' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
);
