import type { Http2SecureServer, SecureServerOptions, ServerHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { loadServerTls, type Logger } from '@portcullis/kit';
import type { Settings } from '../settings.js';

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
 * given (clients without a certificate it signed fail the handshake). The files are read, checked and
 * followed every `GRPC_SERVER_TLS_RELOAD_INTERVAL` by kit's `loadServerTls`.
 */
export async function loadGrpcServerTls(
  tls: Settings['grpc']['tls'],
  log: Logger,
): Promise<GrpcServerTls | undefined> {
  if (!tls.enabled) return undefined;
  const server = await loadServerTls(
    {
      cert: { name: 'GRPC_SERVER_TLS_CERT', path: tls.cert },
      key: { name: 'GRPC_SERVER_TLS_KEY', path: tls.key },
      ca: tls.clientCaCert ? { name: 'GRPC_CLIENT_TLS_CACERT', path: tls.clientCaCert } : undefined,
      reloadIntervalMs: tls.reloadIntervalMs,
    },
    log,
  );
  return {
    options: { ...server.context, requestCert: tls.clientCaCert !== '' },
    follow: server.follow,
    close: server.close,
  };
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
