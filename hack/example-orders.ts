// The example `orders` service that `npm start` runs (hack/local-services.ts): the upstream behind the `orders`
// route of examples/resources/apiroute-users.yaml, which the gateway proxies `/api/v1/orders[/…]` to as
// `/internal[/…]`. A few fixed orders, read-only; on ORDERS_HOST:ORDERS_PORT (127.0.0.1:3001).
import { createServer, type ServerResponse } from 'node:http';

const ORDERS = [
  { id: '1', item: 'gate hinge', quantity: 2, status: 'shipped' },
  { id: '2', item: 'portcullis chain', quantity: 1, status: 'packed' },
  { id: '3', item: 'drawbridge rope', quantity: 4, status: 'ordered' },
];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const host = process.env.ORDERS_HOST || '127.0.0.1';
const port = Number(process.env.ORDERS_PORT || '3001');

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://orders').pathname;
  if (path === '/healthz') return send(res, 200, { status: 'ok' });
  if (req.method !== 'GET') return send(res, 405, { error: 'the example orders are read-only: use GET' });
  if (path === '/internal/orders' || path === '/internal/orders/') return send(res, 200, { orders: ORDERS });
  const id = /^\/internal\/orders\/([^/]+)$/.exec(path)?.[1];
  const order = ORDERS.find((o) => o.id === id);
  if (order) return send(res, 200, order);
  send(res, 404, { error: id === undefined ? `no such path ${path}` : `no order ${id} (try 1, 2 or 3)` });
});

server.listen(port, host, () => {
  process.stdout.write(
    `orders: HTTP on ${host}:${port} (the example backend of the gateway's /api/v1/orders)\n`,
  );
});
server.on('error', (err: NodeJS.ErrnoException) => {
  const why =
    err.code === 'EADDRINUSE' ? `${host}:${port} is in use; set ORDERS_PORT to a free port` : err.message;
  process.stderr.write(`orders: not started: ORDERS_PORT=${port}: ${why}\n`);
  process.exitCode = 1;
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close();
  });
}
