import { readFileSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import { splitHostPort, type Logger } from '@portcullis/kit';

/** memcached's port, for a node given without one. */
const MEMCACHED_PORT = 11211;

/** `OBJCACHE_TLS*` (upstream's `MEMCACHE_TLS*`). */
export interface ObjcacheTls {
  enabled: boolean;
  /** PEM files; empty for none (no client certificate; the system's CAs). */
  clientCert: string;
  clientKey: string;
  caCert: string;
  /** Check the chain against the CA but not the name in the certificate, as upstream. */
  skipHostnameVerification: boolean;
}

export interface TlsTunnels {
  /** A loopback `host:port` that carries plain connections to `node` over TLS; one listener per node. */
  open(node: string): Promise<string>;
  /** Closes the listeners of nodes not in `nodes`. */
  keepOnly(nodes: readonly string[]): void;
  close(): void;
}

/**
 * memjs speaks plain TCP only, so each memcached node is reached through a listener on 127.0.0.1 that
 * opens a TLS connection to the node for each connection memjs makes. The listener serves only this
 * process's own sockets (found through /proc): another process on the host or in the pod could otherwise
 * reach memcached with this process's client certificate.
 */
export function createTlsTunnels(tls: ObjcacheTls, o: { log: Logger }): TlsTunnels {
  const log = o.log.child({ component: 'memcached-tls' });
  const read = (path: string): Buffer | undefined => (path === '' ? undefined : readFileSync(path));
  const cert = read(tls.clientCert);
  const key = read(tls.clientKey);
  const ca = read(tls.caCert);
  const base: ConnectionOptions = {
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(ca ? { ca } : {}),
    ...(tls.skipHostnameVerification ? { checkServerIdentity: () => undefined } : {}),
  };
  const listeners = new Map<string, Promise<{ server: Server; address: string }>>();

  const listen = async (node: string): Promise<{ server: Server; address: string }> => {
    const { host, port } = splitHostPort(node, MEMCACHED_PORT);
    const server = createServer((plain) => {
      void isOwnSocket(plain).then(
        (own) => {
          if (own) return tunnel(plain);
          log.warn({ node, port: plain.remotePort }, 'memcached TLS listener refused another process');
          plain.destroy();
        },
        (err: unknown) => {
          log.warn({ err, node }, 'memcached TLS listener could not check a connection');
          plain.destroy();
        },
      );
    });
    const tunnel = (plain: Socket): void => {
      const secure = connect({ ...base, host, port });
      const end = (): void => {
        plain.destroy();
        secure.destroy();
      };
      secure.on('error', (err) => {
        log.warn({ err, node }, 'memcached TLS connection failed');
        end();
      });
      plain.on('error', end);
      plain.on('close', end);
      secure.on('close', end);
      plain.pipe(secure).pipe(plain);
    };
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
  };

  const keepOnly = (nodes: readonly string[]): void => {
    for (const [node, listener] of listeners) {
      if (nodes.includes(node)) continue;
      listeners.delete(node);
      // one that failed to start (a bad address, its open() already rejected) has nothing to close
      void listener.then(
        ({ server }) => server.close(),
        () => undefined,
      );
    }
  };
  return {
    async open(node) {
      let listener = listeners.get(node);
      if (!listener) {
        listener = listen(node);
        listeners.set(node, listener);
      }
      return (await listener).address;
    },
    keepOnly,
    close: () => keepOnly([]),
  };
}

/**
 * Whether the peer of `accepted`, a loopback connection, is a socket of this process: the kernel's TCP table
 * gives the peer's inode, and this process's descriptors say whether it holds it.
 */
async function isOwnSocket(accepted: Socket): Promise<boolean> {
  const hexPort = (port: number | undefined): string =>
    (port ?? 0).toString(16).toUpperCase().padStart(4, '0');
  const peer = `0100007F:${hexPort(accepted.remotePort)}`;
  const listener = `0100007F:${hexPort(accepted.localPort)}`;
  const table = await readFile('/proc/net/tcp', 'utf8');
  const row = table
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((cols) => cols[1] === peer && cols[2] === listener);
  const inode = row?.[9];
  if (!inode || inode === '0') return false;
  const fds = await readdir('/proc/self/fd');
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return links.includes(`socket:[${inode}]`);
}
