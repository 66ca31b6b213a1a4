import { readFile } from 'node:fs/promises';
import type { PeerCertificate } from 'node:tls';
import {
  Metadata,
  ServerCredentials,
  ServerInterceptingCall,
  status as GrpcStatus,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { SettingsError } from '@portcullis/kit';
import type { Settings } from '../settings.js';

/**
 * Server credentials from `GRPC_SERVER_*`/`GRPC_CLIENT_*`: plaintext, TLS, or mTLS when a client CA is
 * given (clients without a certificate it signed fail the handshake). Certificate files are read once;
 * a file that cannot be read stops start-up, naming the variable.
 */
export async function createGrpcServerCredentials(tls: Settings['grpc']['tls']): Promise<ServerCredentials> {
  if (!tls.enabled) return ServerCredentials.createInsecure();
  const read = async (name: string, path: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (err: unknown) {
      throw new SettingsError([`${name}="${path}": cannot read (${(err as NodeJS.ErrnoException).code})`]);
    }
  };
  const [cert, key, ca] = await Promise.all([
    read('GRPC_SERVER_TLS_CERT', tls.cert),
    read('GRPC_SERVER_TLS_KEY', tls.key),
    tls.clientCaCert ? read('GRPC_CLIENT_TLS_CACERT', tls.clientCaCert) : null,
  ]);
  return ServerCredentials.createSsl(ca, [{ cert_chain: cert, private_key: key }], ca !== null);
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
