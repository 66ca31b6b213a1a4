import { readFile } from 'node:fs/promises';
import type { Http2SecureServer, SecureServerOptions, ServerHttp2Session } from 'node:http2';
import { createSecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';
import { SettingsError, type Logger } from '@portcullis/kit';
import type { Settings } from '../settings.js';

/** The PEM files of the server, as last read. */
interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  ca: Buffer | null;
}

function contextOptions(files: TlsFiles): SecureContextOptions {
  return { cert: files.cert, key: files.key, ...(files.ca ? { ca: files.ca } : {}) };
}

/** TLS of the gRPC server, and `close()` to stop following the certificate files. */
export interface GrpcServerTls {
  /** For `http2.createSecureServer`: the certificate and key, and with a client CA, `requestCert`. */
  options: SecureServerOptions;
  /** Gives `server` the certificates read from now on. */
  follow(server: Http2SecureServer): void;
  close(): void;
}

/**
 * Server TLS from `GRPC_SERVER_*`/`GRPC_CLIENT_*`: none (plaintext), TLS, or mTLS when a client CA is
 * given (clients without a certificate it signed fail the handshake). A file that cannot be read stops
 * start-up, naming the variable. Every `reloadIntervalMs` the files are read again, and new certificates
 * (cert-manager or a Secret volume renewing them) serve new connections; a set that does not make a valid
 * TLS context (a half-written file, a key of another certificate) is logged and the last good one kept.
 */
export async function loadGrpcServerTls(
  tls: Settings['grpc']['tls'],
  log: Logger,
): Promise<GrpcServerTls | undefined> {
  if (!tls.enabled) return undefined;
  const read = async (name: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (err: unknown) {
      throw new SettingsError([`${name}="${path}": cannot read (${(err as NodeJS.ErrnoException).code})`]);
    }
  };
  const readAll = async (): Promise<TlsFiles> => {
    const [cert, key, ca] = await Promise.all([
      read('GRPC_SERVER_TLS_CERT', tls.cert),
      read('GRPC_SERVER_TLS_KEY', tls.key),
      tls.clientCaCert ? read('GRPC_CLIENT_TLS_CACERT', tls.clientCaCert) : null,
    ]);
    return { cert, key, ca };
  };
  let current = await readAll();
  try {
    createSecureContext(contextOptions(current));
  } catch (err: unknown) {
    throw new SettingsError([
      `GRPC_SERVER_TLS_CERT, GRPC_SERVER_TLS_KEY, GRPC_CLIENT_TLS_CACERT: not a usable TLS set (${(err as Error).message})`,
    ]);
  }
  const options: SecureServerOptions = { ...contextOptions(current), requestCert: tls.clientCaCert !== '' };
  let server: Http2SecureServer | undefined;
  const follow = (s: Http2SecureServer): void => {
    server = s;
  };
  if (tls.reloadIntervalMs <= 0) return { options, follow, close: () => undefined };

  let rejected: TlsFiles | undefined;
  const same = (a: TlsFiles, b: TlsFiles): boolean =>
    a.cert.equals(b.cert) &&
    a.key.equals(b.key) &&
    (a.ca === null ? b.ca === null : b.ca !== null && a.ca.equals(b.ca));
  const reload = async (): Promise<void> => {
    const next = await readAll();
    if (same(next, current) || (rejected && same(next, rejected))) return;
    try {
      createSecureContext(contextOptions(next));
    } catch (err: unknown) {
      rejected = next;
      log.warn({ err }, 'new gRPC TLS files do not make a valid TLS context; keeping the last good ones');
      return;
    }
    current = next;
    rejected = undefined;
    server?.setSecureContext(contextOptions(next));
    log.info('gRPC TLS certificates reloaded');
  };
  let reloading = false;
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = true;
    reload()
      .catch((err: unknown) =>
        log.warn({ err }, 'cannot read the gRPC TLS files; keeping the last good ones'),
      )
      .finally(() => (reloading = false));
  }, tls.reloadIntervalMs);
  timer.unref();
  return { options, follow, close: () => clearInterval(timer) };
}

/**
 * `GRPC_CLIENT_TLS_SAN`: whether the client certificate of `session` names `san` among its DNS subject
 * alternative names; read once per connection.
 */
export function createClientSanCheck(san: string): (session: ServerHttp2Session) => boolean {
  const checked = new WeakMap<ServerHttp2Session, boolean>();
  return (session) => {
    let named = checked.get(session);
    if (named === undefined) {
      const socket = session.socket as TLSSocket;
      // Node writes the SANs as `DNS:a, DNS:b, IP Address:…`
      const sans = socket.authorized ? (socket.getPeerCertificate().subjectaltname ?? '') : '';
      named = sans.split(', ').includes(`DNS:${san}`);
      checked.set(session, named);
    }
    return named;
  };
}
