import { readFileSync } from 'node:fs';
import type { TestCertificates } from './certificates.js';
import { freePort } from './free-port.js';
import { spawnServer, type ServerProcess } from './server-process.js';

export interface MemcachedServer extends ServerProcess {
  address: string;
}

/**
 * Starts a throw-away `memcached` on a free loopback port; with `tls`, Debian's memcached speaking only TLS
 * (`-Z`) with the server certificate and requiring a client certificate signed by the CA.
 */
export async function startMemcached(opts: { tls?: TestCertificates } = {}): Promise<MemcachedServer> {
  const port = await freePort();
  const { tls } = opts;
  const tlsArgs = tls
    ? [
        '-Z',
        '-o',
        `ssl_chain_cert=${tls.serverCert},ssl_key=${tls.serverKey},ssl_ca_cert=${tls.caCert},ssl_verify_mode=2`,
      ]
    : [];
  const probeTls = tls
    ? { ca: readFileSync(tls.caCert), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) }
    : undefined;
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
      ...tlsArgs,
      ...(process.getuid?.() === 0 ? ['-u', 'root'] : []),
    ],
    port,
    probe: {
      send: 'version\r\n',
      ready: (reply) => reply.startsWith('VERSION'),
      ...(probeTls ? { tls: probeTls } : {}),
    },
  });
  return { ...server, address: `127.0.0.1:${port}` };
}
