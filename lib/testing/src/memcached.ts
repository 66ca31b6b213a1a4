import { freePort } from './free-port.js';
import { spawnServer, type ServerProcess } from './server-process.js';

export interface MemcachedServer extends ServerProcess {
  address: string;
}

/** Starts a throw-away `memcached` on a free loopback port. */
export async function startMemcached(): Promise<MemcachedServer> {
  const port = await freePort();
  const server = await spawnServer({
    command: 'memcached',
    args: [
      '-l',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      '0',
      '-m',
      '64',
      ...(process.getuid?.() === 0 ? ['-u', 'root'] : []),
    ],
    port,
    probe: { send: 'version\r\n', ready: (reply) => reply.startsWith('VERSION') },
  });
  return { ...server, address: `127.0.0.1:${port}` };
}
