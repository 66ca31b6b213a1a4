import {
  constants,
  createSecureServer,
  createServer,
  type Http2SecureServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import {
  batchPerTurn,
  GRPC_STATUS,
  withCallerContext,
  type Health,
  type Logger,
  type RunningServer,
  toListenError,
} from '@portcullis/kit';
import { PROTO_FILES, loadGrpcObject, type LoadOptions } from '@portcullis/protos';
import type { RateLimitService } from '../service.js';
import type { Settings } from '../settings.js';
import type { CallStats } from '../stats/call-stats.js';
import type { Stats } from '../stats/stats.js';
import type { RateLimitRequest } from '../types.js';
import { toGrpcStatus } from './error-mapper.js';
import { GrpcCall, UNDECODABLE, respondStatus, type RequestHandler } from './grpc/grpc-call.js';
import {
  decodeRateLimitRequest,
  encodeRateLimitResponse,
  requireExactHitsAddends,
} from './grpc/rls-codec.js';
import { createHealthService } from './grpc-health.js';
import { MalformedMessageError } from './grpc/proto-wire.js';
import type { RequestBounds } from './request-bounds.js';
import { createClientSanCheck, loadGrpcServerTls } from './grpc-tls.js';

export interface GrpcServerOptions extends Readonly<Settings['grpc']> {
  /** Descriptors per request and entries per descriptor; past them, `INVALID_ARGUMENT` while decoding. */
  bounds: RequestBounds;
  service: RateLimitService;
  stats: Stats;
  health: Health;
  log: Logger;
}

/** How long a graceful shutdown waits for calls in flight before cutting them. */
const DRAIN_TIMEOUT_MS = 5000;
const SHOULD_RATE_LIMIT = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

/** A client of `RateLimitService` (the CLI's, the tests'); the server reads and writes the messages itself. */
export function loadRateLimitServiceDefinition(o: Pick<LoadOptions, 'longs'> = {}): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService], o);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return (pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor;
}

/**
 * `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit` and `grpc.health.v1.Health`, on `node:http2`
 * with the gRPC framing of `grpc/grpc-call.ts` and the message codec of `grpc/rls-codec.ts`.
 */
export async function startGrpcServer(o: GrpcServerOptions): Promise<RunningServer> {
  const log = o.log.child({ component: 'grpc' });
  const tls = await loadGrpcServerTls(o.tls, log);
  // grpc-js's settings: no cap on a session's memory (Node degrades badly when it is reached) or headers
  const common = {
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
  };
  let server: Http2Server | Http2SecureServer;
  if (tls) {
    const secure = createSecureServer({ ...common, ...tls.options });
    secure.on('secureConnection', (socket: NodeJS.EventEmitter) => socket.on('error', ignore));
    tls.follow(secure);
    server = secure;
  } else server = createServer(common);

  const healthService = createHealthService(o.health);
  const handlers = new Map<string, RequestHandler>(healthService.handlers);
  handlers.set(SHOULD_RATE_LIMIT, createShouldRateLimit(o, log));
  const sanNamed = o.tls.enabled && o.tls.clientSan ? createClientSanCheck(o.tls.clientSan) : undefined;
  const refusedSan = {
    code: GRPC_STATUS.UNAUTHENTICATED,
    details: `client certificate does not name ${o.tls.clientSan}`,
  };

  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', ignore);
    const contentType = headers['content-type'];
    if (contentType === undefined || !contentType.startsWith('application/grpc')) {
      stream.respond({ ':status': constants.HTTP_STATUS_UNSUPPORTED_MEDIA_TYPE }, { endStream: true });
      return;
    }
    const path = headers[':path'] ?? '';
    const handler = handlers.get(path);
    if (!handler) {
      respondStatus(stream, {
        code: GRPC_STATUS.UNIMPLEMENTED,
        details: `The server does not implement the method ${path}`,
      });
      return;
    }
    if (sanNamed && !sanNamed(stream.session as ServerHttp2Session)) {
      respondStatus(stream, refusedSan);
      return;
    }
    new GrpcCall(stream, headers, handler).start();
  });

  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    const stopAging = limitAge(session, o);
    session.once('close', () => {
      sessions.delete(session);
      stopAging();
    });
  });

  const port = await new Promise<number>((resolve, reject) => {
    const onError = (err: Error): void =>
      reject(toListenError(err, { host: o.host, port: o.port, setting: 'GRPC_PORT' }));
    server.once('error', onError);
    server.listen(o.port, o.host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : o.port);
    });
  });
  log.info(
    { host: o.host, port, tls: o.tls.enabled, mtls: o.tls.enabled && o.tls.clientCaCert !== '' },
    'gRPC listening',
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        healthService.close();
        tls?.close();
        const force = setTimeout(() => {
          for (const session of sessions) session.destroy(undefined, constants.NGHTTP2_CANCEL);
        }, DRAIN_TIMEOUT_MS);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        // a GOAWAY: calls in flight finish, no new ones start, the connection closes after the last
        for (const session of sessions) session.close();
      }),
  };
}

/**
 * GOAWAY after `maxConnectionAgeMs` (±10% jitter, as grpc-js), then the connection is cut after
 * `maxConnectionAgeGraceMs`; 0 is no limit, as in upstream's Go server. Returns the timers' cancel.
 */
function limitAge(session: ServerHttp2Session, o: GrpcServerOptions): () => void {
  if (o.maxConnectionAgeMs <= 0) return noop;
  let grace: NodeJS.Timeout | undefined;
  const jitter = (Math.random() * 2 - 1) * (o.maxConnectionAgeMs / 10);
  const age = setTimeout(() => {
    if (session.closed || session.destroyed) return;
    session.goaway(constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1, Buffer.from('max_age'));
    session.close();
    if (o.maxConnectionAgeGraceMs > 0) {
      grace = setTimeout(() => session.destroy(), o.maxConnectionAgeGraceMs);
      grace.unref();
    }
  }, o.maxConnectionAgeMs + jitter);
  age.unref();
  return () => {
    clearTimeout(age);
    clearTimeout(grace);
  };
}

/** `ShouldRateLimit`: statistics and the warn log for every call that reached the service, as before. */
function createShouldRateLimit(o: GrpcServerOptions, log: Logger): RequestHandler {
  const to: Answering = { service: o.service, callStats: o.stats.call('ShouldRateLimit'), log };
  return (call, message) => {
    let request: RateLimitRequest;
    try {
      request = decodeRateLimitRequest(message, o.bounds);
    } catch (err: unknown) {
      if (err instanceof MalformedMessageError) call.sendStatus(UNDECODABLE);
      else {
        // past a bound: the client's doing, so below warn
        log.debug({ err }, 'ShouldRateLimit refused');
        call.sendStatus(toGrpcStatus(err));
      }
      return;
    }
    void answer(call, request, to);
  };
}

interface Answering {
  service: RateLimitService;
  callStats: CallStats;
  log: Logger;
}

async function answer(call: GrpcCall, request: RateLimitRequest, to: Answering): Promise<void> {
  const started = performance.now();
  try {
    // a caller's traceparent and baggage make the decision part of its trace
    const response = await withCallerContext(call.headers, () => {
      requireExactHitsAddends(request);
      return to.service.shouldRateLimit(request);
    });
    sendAfterTurn([call, encodeRateLimitResponse(response)]);
  } catch (err: unknown) {
    const status = toGrpcStatus(err);
    to.log.warn({ err, domain: request.domain, grpcCode: status.code }, 'ShouldRateLimit failed');
    call.sendStatus(status);
  } finally {
    to.callStats.record(performance.now() - started);
  }
}

/**
 * Answers decided in one event-loop turn, sent together once it ends: an answer decided at once (the local
 * cache) is otherwise sent while nghttp2 still reads the request frames, each stream's on its own.
 */
const sendAfterTurn = batchPerTurn<[GrpcCall, Buffer]>((answered) => {
  for (const [call, frame] of answered) call.sendUnary(frame);
});

function ignore(): void {
  // stream and socket errors end in a 'close' event, which is handled; there is nothing to answer
}
function noop(): void {
  // no timers to cancel
}
