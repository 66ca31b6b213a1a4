import { createLogger } from '@portcullis/kit';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { createSotwServer } from '@portcullis/xds';
import type { OnCleanup } from '../common/run-bench.js';

/** The xDS type of InboxEndpoint resources, as the inbox subscribes to it. */
const INBOX_ENDPOINT_TYPE = 'type.googleapis.com/portcullis.config.v1.InboxEndpoint';
const RESOURCE_NAME = 'bench/forwarding';

/** The managed endpoint whose captures the worker forwards to the bench's target. */
export const FORWARDING_ENDPOINT_ID = 'bench-forwarding-0123456789ab';

export interface ForwardingEndpointOptions {
  /** Where captures are forwarded (pathMode append: a capture on the receive URL itself arrives here). */
  targetUrl: string;
  /** Kept by the count trim: at least every capture of the run, since a trimmed one is never forwarded. */
  maxRequests: number;
}

/**
 * Serves one InboxEndpoint over xDS (state of the world, 127.0.0.1) from this process, as the operator
 * would; the server is closed by `onCleanup`. Resolves with its port, for `INBOX_XDS_SERVER_URL`.
 */
export async function serveForwardingEndpoint(
  o: ForwardingEndpointOptions,
  onCleanup: OnCleanup,
): Promise<number> {
  const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint');
  const server = createSotwServer({
    host: '127.0.0.1',
    port: 0,
    log: createLogger({ level: 'warn', format: 'json' }),
  });
  server.setResources(INBOX_ENDPOINT_TYPE, [
    {
      name: RESOURCE_NAME,
      value: codec.encode({
        name: RESOURCE_NAME,
        endpointId: FORWARDING_ENDPOINT_ID,
        displayName: 'bench forwarding',
        forward: [
          {
            url: o.targetUrl,
            pathMode: 'append',
            enabled: true,
            timeoutSeconds: 10,
            maxAttempts: 3,
            initialDelaySeconds: 1,
            maxDelaySeconds: 1,
          },
        ],
        retention: { maxRequests: o.maxRequests, maxAgeHours: 1, maxBytes: 1_073_741_824 },
      }),
    },
  ]);
  await server.start();
  onCleanup(() => server.close());
  return server.port;
}
