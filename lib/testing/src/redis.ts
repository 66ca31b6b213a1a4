import { readFileSync } from 'node:fs';
import type { TestCertificates } from './certificates.js';
import { freePort } from './free-port.js';
import { spawnServer, type ServerProcess } from './server-process.js';

export interface RedisServer extends ServerProcess {
  /** `host:port`, the form `KVSTORE_URL` takes. */
  address: string;
}

export interface RedisOptions {
  /** A free port is picked unless given (e.g. to bring a killed server back where its clients expect it). */
  port?: number;
  args?: readonly string[];
  /** Serve TLS only, requiring client certificates signed by the test CA. */
  tls?: TestCertificates;
}

/** Starts a throw-away `redis-server` on a loopback port, with persistence off. */
export async function startRedis(opts: RedisOptions = {}): Promise<RedisServer> {
  const port = opts.port ?? (await freePort());
  const { tls } = opts;
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.serverCert].concat([
        '--tls-key-file',
        tls.serverKey,
        '--tls-ca-cert-file',
        tls.caCert,
      ])
    : ['--port', String(port)];
  const probeTls = tls
    ? { ca: readFileSync(tls.caCert), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) }
    : undefined;
  const server = await spawnServer({
    command: 'redis-server',
    args: [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(opts.args ?? [])],
    port,
    probe: {
      send: 'PING\r\n',
      // A server that requires a password answers NOAUTH: it is up all the same.
      ready: (reply) => reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'),
      ...(probeTls ? { tls: probeTls } : {}),
    },
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
