import { withSpan } from '@portcullis/kit';
import { createCallBatcher } from './call-batcher.js';
import { RateLimitClientClosedError, RateLimitClientOptionsError } from './errors.js';
import { createFailureTracker, toFailureReason } from './failure-tracker.js';
import {
  toDecision,
  toFailureDecision,
  toGrpcRequest,
  type GrpcRateLimitRequest,
  type GrpcRateLimitResponse,
} from './grpc-codec.js';
import { createRlsChannel, isXdsTarget, loadShouldRateLimitMethod } from './rls-channel.js';
import type { RateLimitClient, RateLimitClientOptions } from './types.js';

const TRACER = '@portcullis/ratelimit-client';
const SPAN_NAME = 'RateLimit Client ShouldRateLimit';

function checkOptions(o: RateLimitClientOptions): void {
  const problems: string[] = [];
  if (o.target === '') problems.push('target: must not be empty');
  if (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0)
    problems.push(`timeoutMs: expected a number > 0, got ${o.timeoutMs}`);
  if (o.xds && !isXdsTarget(o.target))
    problems.push(`xds: a bootstrap is only used by an xds:/// target, got "${o.target}"`);
  if (problems.length > 0) throw new RateLimitClientOptionsError(problems);
}

/**
 * A client of `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit` over one channel.
 * @throws RateLimitClientOptionsError listing every unusable option.
 */
export function createRateLimitClient(o: RateLimitClientOptions): RateLimitClient {
  checkOptions(o);
  const log = o.log.child({ component: 'ratelimit-client', target: o.target });
  const method = loadShouldRateLimitMethod();
  const channel = createRlsChannel(o);
  const tracker = createFailureTracker(o.failureMode, log);
  let closed = false;

  const callOnce = (request: GrpcRateLimitRequest): Promise<GrpcRateLimitResponse> =>
    new Promise((resolve, reject) => {
      channel.makeUnaryRequest(
        method.path,
        method.serialize,
        method.deserialize,
        request,
        { deadline: Date.now() + o.timeoutMs },
        (err, response) => (err ? reject(err) : resolve(response ?? {})),
      );
    });
  const call =
    o.batch === false
      ? async (request: GrpcRateLimitRequest) => ({ response: await callOnce(request), batchSize: 1 })
      : createCallBatcher(callOnce);

  return {
    async decide(request) {
      if (closed) throw new RateLimitClientClosedError();
      tracker.recordCall();
      try {
        const decision = await withSpan(TRACER, SPAN_NAME, async (span) => {
          span.setAttributes({
            'rpc.system': 'grpc',
            'rpc.method': 'ShouldRateLimit',
            'ratelimit.domain': request.domain,
            'ratelimit.descriptors': request.descriptors.length,
          });
          try {
            const { response, batchSize } = await call(toGrpcRequest(request));
            span.setAttribute('ratelimit.batch_size', batchSize);
            const d = toDecision(response, request.domain);
            span.setAttribute('ratelimit.over_limit', d.overLimit);
            return d;
          } catch (err: unknown) {
            span.setAttribute('ratelimit.failure_reason', toFailureReason(err));
            throw err;
          }
        });
        tracker.recordSuccess();
        return decision;
      } catch (err: unknown) {
        tracker.recordFailure(err);
        if (o.fallback && o.failureMode === 'allow') return o.fallback.decide(request);
        return toFailureDecision(o.failureMode);
      }
    },
    stats: () => tracker.stats(),
    close() {
      if (closed) return;
      closed = true;
      channel.close();
    },
  };
}
