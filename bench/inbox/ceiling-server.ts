// The ceiling: a bare fastify app in its own process, like the inbox, answering a POST with the body the
// inbox answers a capture with; with `CEILING_WORKERS` above 1, that many node:cluster workers share its port
// as the inbox's INBOX_WORKERS do. Prints `{"port":…}` once every worker listens.
import cluster from 'node:cluster';
import Fastify from 'fastify';

const workers = Number(process.env.CEILING_WORKERS ?? '1');

if (workers > 1 && cluster.isPrimary) {
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (listening === workers) process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  });
  for (let i = 0; i < workers; i++) cluster.fork();
} else {
  const app = Fastify({ logger: false });
  app.post('/api/hook/:id', () => Promise.resolve({ ok: true, requestId: '1700000000000-0' }));
  // port 0 in every worker is one port: the primary binds it once and shares it
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!cluster.isWorker) {
    process.stdout.write(
      `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
    );
  }
}
