import { readFile } from 'node:fs/promises';
import { createSecureContext, type PeerCertificate, type SecureContextOptions } from 'node:tls';
import {
  Metadata,
  ServerCredentials,
  ServerInterceptingCall,
  status as GrpcStatus,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { SettingsError, type Logger } from '@portcullis/kit';
import type { Settings } from '../settings.js';

/** The PEM files of the server, as last read. */
interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  ca: Buffer | null;
}

/** TLS server credentials whose certificates can be replaced while the server runs. */
class ReloadableCredentials extends ServerCredentials {
  constructor(requireClientCert: boolean, files: TlsFiles) {
    super({ requestCert: requireClientCert }, contextOptions(files));
  }

  replace(files: TlsFiles): void {
    this.updateSecureContextOptions(contextOptions(files));
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}

function contextOptions(files: TlsFiles): SecureContextOptions {
  return { cert: files.cert, key: files.key, ...(files.ca ? { ca: files.ca } : {}) };
}

/** Server credentials, and `close()` to stop following the certificate files. */
export interface GrpcServerCredentials {
  credentials: ServerCredentials;
  close(): void;
}

/**
 * Server credentials from `GRPC_SERVER_*`/`GRPC_CLIENT_*`: plaintext, TLS, or mTLS when a client CA is
 * given (clients without a certificate it signed fail the handshake). A file that cannot be read stops
 * start-up, naming the variable. Every `reloadIntervalMs` the files are read again, and new certificates
 * (cert-manager or a Secret volume renewing them) serve new connections; a set that does not make a valid
 * TLS context (a half-written file, a key of another certificate) is logged and the last good one kept.
 */
export async function createGrpcServerCredentials(
  tls: Settings['grpc']['tls'],
  log: Logger,
): Promise<GrpcServerCredentials> {
  if (!tls.enabled) return { credentials: ServerCredentials.createInsecure(), close: () => undefined };
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
  const credentials = new ReloadableCredentials(tls.clientCaCert !== '', current);
  if (tls.reloadIntervalMs <= 0) return { credentials, close: () => undefined };

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
    credentials.replace(next);
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
  return { credentials, close: () => clearInterval(timer) };
}

/**
 * `GRPC_CLIENT_TLS_SAN`: refuses every call, `UNAUTHENTICATED`, whose client certificate does not name
 * `san` among its DNS subject alternative names.
 */
export function requireClientSan(san: string): ServerInterceptor {
  return (_method, call) =>
    new ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, forward) {
            if (hasDnsSan(call.getAuthContext().sslPeerCertificate, san)) forward(metadata);
            else
              call.sendStatus({
                code: GrpcStatus.UNAUTHENTICATED,
                details: `client certificate does not name ${san}`,
                metadata: new Metadata(),
              });
          },
        });
      },
    });
}

/** Node writes the SANs as `DNS:a, DNS:b, IP Address:…`. */
function hasDnsSan(cert: PeerCertificate | undefined, san: string): boolean {
  return (cert?.subjectaltname ?? '').split(', ').includes(`DNS:${san}`);
}
