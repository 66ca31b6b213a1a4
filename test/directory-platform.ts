import type { Logger } from '@portcullis/kit';
import { freePort, quietLog } from '@portcullis/testing';
import type { OperatorApp } from '@portcullis/operator';
import type { RateLimitApp } from '@portcullis/ratelimit';
import { startDirectoryOperator } from '../operator/test/directory-operator.js';
import { startXdsRateLimit } from '../services/ratelimit/test/xds-rate-limit.js';

/** What `npm start` runs at its core: the operator on a directory, and the ratelimit service it configures. */
export interface DirectoryPlatform {
  operator: OperatorApp;
  ratelimit: RateLimitApp;
  /** The operator's xDS server, `127.0.0.1:<port>`. */
  xds: string;
  /** The ratelimit service's gRPC address, `127.0.0.1:<port>`: the operator's `ratelimit` endpoint. */
  grpc: string;
  /** Closes the ratelimit service, then the operator. */
  close(): Promise<void>;
}

export interface DirectoryPlatformOptions {
  /** The ratelimit service's settings on top of `startXdsRateLimit`'s and node id `ratelimit-0`. */
  rateLimitEnv?: Record<string, string>;
  /** Both apps' log (quiet by default). */
  log?: Logger;
}

/**
 * The operator in directory mode on `dir`, handing out the ratelimit service as the `ratelimit` endpoint
 * (`xds:///ratelimit`), and that service on loopback ports taking its configuration from the operator over xDS.
 */
export async function startDirectoryPlatform(
  dir: string,
  o: DirectoryPlatformOptions = {},
): Promise<DirectoryPlatform> {
  const log = o.log ?? quietLog;
  // the operator names the endpoint before the service that listens on it starts
  const grpcPort = await freePort();
  const grpc = `127.0.0.1:${grpcPort}`;
  const operator = await startDirectoryOperator(dir, {
    env: { OPERATOR_SERVICE_ENDPOINTS: `ratelimit=${grpc}` },
    log,
  });
  const xds = `127.0.0.1:${operator.ports.xds}`;
  const ratelimit = await startXdsRateLimit(xds, {
    env: { CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-0', GRPC_PORT: String(grpcPort), ...o.rateLimitEnv },
    log,
  }).catch(async (err: unknown) => {
    await operator.close();
    throw err;
  });
  return {
    operator,
    ratelimit,
    xds,
    grpc,
    close: async () => {
      await ratelimit.close();
      await operator.close();
    },
  };
}
