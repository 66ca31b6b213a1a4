import { freePort } from './free-port.js';
import { spawnServer, type ServerProcess } from './server-process.js';

export interface RedisServer extends ServerProcess {
  /** `host:port`, the form `KVSTORE_URL` takes. */
  address: string;
}

/**
 * Starts a throw-away `redis-server` on a loopback port (a free one unless given, e.g. to bring a killed
 * server back where its clients expect it), with persistence off.
 */
export async function startRedis(
  opts: { port?: number; args?: readonly string[] } = {},
): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const server = await spawnServer({
    command: 'redis-server',
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...(opts.args ?? []),
    ],
    port,
    probe: { send: 'PING\r\n', ready: (reply) => reply.includes('+PONG') },
  });
  return { ...server, address: `127.0.0.1:${port}` };
}

/** Runs `fn` against a fresh redis-server and stops it afterwards, whatever happens. */
export async function withRedis<T>(fn: (redis: RedisServer) => Promise<T>): Promise<T> {
  const redis = await startRedis();
  try {
    return await fn(redis);
  } finally {
    await redis.stop();
  }
}
