import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeepAlive, deliver } from '../src/delivery/deliver.js';

/** A two-byte POST to 127.0.0.1:`port` over `keepAlive`'s connections. */
const sendHi = (port: number, keepAlive: ReturnType<typeof createKeepAlive>) =>
  deliver(
    {
      url: new URL(`http://127.0.0.1:${port}/hook`),
      method: 'POST',
      path: '/hook',
      rawHeaders: ['Host', `127.0.0.1:${port}`, 'Content-Length', '2'],
      body: Buffer.from('hi'),
    },
    { pinned: { address: '127.0.0.1', family: 4 }, timeoutMs: 2000, keepAlive },
  );

// A kept connection the target drops just as it is reused: nothing reached the target, so the delivery
// goes again on a new connection instead of failing (and waiting for a retry).

describe('deliver with kept connections', () => {
  let server: Server;
  let port: number;
  const connections: Socket[] = [];
  let requests = 0;
  let resets = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections.push(socket);
      let onThisConnection = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').startsWith('POST ')) return;
        onThisConnection++;
        // the first connection's second request: reset, as a server closing an idle connection would
        if (connections.indexOf(socket) === 0 && onThisConnection === 2) {
          resets++;
          socket.resetAndDestroy();
          return;
        }
        requests++;
        socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reuses the connection, and sends again on a new one when the reused one is reset', async () => {
    const keepAlive = createKeepAlive({ maxIdle: 16 });
    const send = () => sendHi(port, keepAlive);
    try {
      expect(await send()).toEqual({ kind: 'answered', status: 204 });
      expect(await send()).toEqual({ kind: 'answered', status: 204 });
      expect(await send()).toEqual({ kind: 'answered', status: 204 });
      expect(requests).toBe(3);
      // the second delivery reused the first connection and was reset there; its resend had a connection of
      // its own, and the third opened a new kept one
      expect(resets).toBe(1);
      expect(connections).toHaveLength(3);
    } finally {
      keepAlive.close();
    }
  });
});

describe('deliver in bursts over kept connections', () => {
  let server: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.on('data', (chunk) => {
        if (chunk.toString('latin1').startsWith('POST ')) {
          socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('keeps every connection of a burst for the next one, up to maxIdle', async () => {
    const burst = 24;
    const keepAlive = createKeepAlive({ maxIdle: burst });
    const send = () => sendHi(port, keepAlive);
    try {
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all(Array.from({ length: burst }, send));
        expect(results.every((r) => r.kind === 'answered' && r.status === 204)).toBe(true);
      }
      expect(connections).toBe(burst);
    } finally {
      keepAlive.close();
    }
  });
});
