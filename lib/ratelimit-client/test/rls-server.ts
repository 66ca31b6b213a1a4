import {
  Server,
  ServerCredentials,
  type GrpcObject,
  type ServerUnaryCall,
  type ServiceClientConstructor,
  type ServiceDefinition,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';
import {
  createRateLimitClient,
  type RateLimitClient,
  type RateLimitClientOptions,
} from '@portcullis/ratelimit-client';
import { freePort, quietLog } from '@portcullis/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** `RateLimitRequest` as the server's proto-loader decodes it. */
export interface ReceivedRequest {
  domain?: string;
  descriptors?: Array<{ entries?: Array<{ key?: string; value?: string }>; hitsAddend?: { value?: number } }>;
  hitsAddend?: number;
}

/**
 * A real grpc-js `RateLimitService` that decides from the request alone. Per descriptor: an entry
 * `user=blocked` is OVER_LIMIT (2 per minute, resets in 42 s); `unlimited=*` is OK without a limit;
 * anything else is OK at 10 per minute, remaining 10 minus its hits, resetting in 30 s. Domain
 * `service-headers` answers with its own limit headers, `undecided` with overall code UNKNOWN.
 */
export interface RlsServer {
  readonly port: number;
  /** `host:port` for a client target. */
  readonly address: string;
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[];
  /** How long each answer waits; 0 by default. */
  delayMs: number;
  /** Cuts every connection and stops listening: a dead service. */
  stop(): void;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

function loadService(): ServiceDefinition {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService]);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return ((pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor).service;
}

function answer(req: ReceivedRequest): object {
  if (req.domain === 'undecided') return {};
  const statuses = (req.descriptors ?? []).map((d) => {
    const entries = d.entries ?? [];
    const hits = d.hitsAddend?.value ?? (req.hitsAddend || 1);
    if (entries.some((e) => e.key === 'user' && e.value === 'blocked'))
      return {
        code: 'OVER_LIMIT',
        currentLimit: { requestsPerUnit: 2, unit: 'MINUTE' },
        limitRemaining: 0,
        durationUntilReset: { seconds: 42 },
      };
    if (entries.some((e) => e.key === 'unlimited')) return { code: 'OK' };
    return {
      code: 'OK',
      currentLimit: { requestsPerUnit: 10, unit: 'MINUTE' },
      limitRemaining: 10 - hits,
      durationUntilReset: { seconds: 30 },
    };
  });
  const overallCode = statuses.some((s) => s.code === 'OVER_LIMIT') ? 'OVER_LIMIT' : 'OK';
  const responseHeadersToAdd =
    req.domain === 'service-headers'
      ? [
          { key: 'ratelimit-limit', value: '99' },
          { key: 'x-served-by', value: 'rls-test' },
        ]
      : [];
  return { overallCode, statuses, responseHeadersToAdd };
}

/** Plaintext by default; `credentials` for TLS or mTLS. */
export async function startRlsServer(
  credentials: ServerCredentials = ServerCredentials.createInsecure(),
): Promise<RlsServer> {
  const service = loadService();
  const port = await freePort();
  let server: Server | undefined;

  const listen = async (): Promise<void> => {
    const s = new Server();
    s.addService(service, {
      ShouldRateLimit(call: ServerUnaryCall<ReceivedRequest, object>, callback: sendUnaryData<object>) {
        rls.requests.push(call.request);
        const reply = (): void => callback(null, answer(call.request));
        if (rls.delayMs > 0) setTimeout(reply, rls.delayMs);
        else reply();
      },
    });
    await new Promise<number>((resolve, reject) =>
      s.bindAsync(`127.0.0.1:${port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
    );
    server = s;
  };

  const rls: RlsServer = {
    port,
    address: `127.0.0.1:${port}`,
    requests: [],
    delayMs: 0,
    stop() {
      server?.forceShutdown();
      server = undefined;
    },
    restart: listen,
  };
  await listen();
  return rls;
}

/**
 * For a describe block: a test `RlsServer` started before its tests and stopped after, and `open(o)`, a
 * client of it (deadline 2 s, failure mode deny, quiet) closed after each test.
 */
export function useRlsServer(): {
  rls: () => RlsServer;
  open: (o?: Partial<RateLimitClientOptions>) => RateLimitClient;
} {
  let server: RlsServer | undefined;
  const clients: RateLimitClient[] = [];
  const rls = (): RlsServer => {
    if (!server) throw new Error('useRlsServer: the server is not started yet');
    return server;
  };
  beforeAll(async () => {
    server = await startRlsServer();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(() => server?.stop());
  return {
    rls,
    open: (o = {}) => {
      const c = createRateLimitClient({
        target: rls().address,
        timeoutMs: 2000,
        failureMode: 'deny',
        log: quietLog,
        ...o,
      });
      clients.push(c);
      return c;
    },
  };
}
