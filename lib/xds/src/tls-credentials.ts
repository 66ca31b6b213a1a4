import { readFileSync } from 'node:fs';
import { ServerCredentials, credentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';

/** PEM file paths. With `clientCa` the server requires a client certificate signed by it (mTLS). */
export interface ServerTlsOptions {
  cert: string;
  key: string;
  clientCa?: string;
}

/** PEM file paths; without `caCert` the system roots verify the server. */
export interface ClientTlsOptions {
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
  /** The name the server certificate must carry, when it differs from the host in the URL. */
  serverNameOverride?: string;
}

/** Insecure without `tls`. Reads the files now, so a missing file fails start-up naming it. */
export function createServerCredentials(tls: ServerTlsOptions | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  const clientCa = tls.clientCa === undefined ? null : readFileSync(tls.clientCa);
  return ServerCredentials.createSsl(
    clientCa,
    [{ cert_chain: readFileSync(tls.cert), private_key: readFileSync(tls.key) }],
    clientCa !== null,
  );
}

/** Insecure without `tls`; the override becomes the TLS name checked and the `:authority` sent. */
export function createChannelCredentials(tls: ClientTlsOptions | undefined): {
  credentials: ChannelCredentials;
  options: ChannelOptions;
} {
  if (!tls) return { credentials: credentials.createInsecure(), options: {} };
  const read = (path: string | undefined): Buffer | null => (path === undefined ? null : readFileSync(path));
  return {
    credentials: credentials.createSsl(read(tls.caCert), read(tls.clientKey), read(tls.clientCert)),
    options:
      tls.serverNameOverride === undefined
        ? {}
        : {
            'grpc.ssl_target_name_override': tls.serverNameOverride,
            'grpc.default_authority': tls.serverNameOverride,
          },
  };
}
