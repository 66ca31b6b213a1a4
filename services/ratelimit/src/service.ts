import { RATE_LIMIT_UNITS, UNIT_SECONDS } from '@portcullis/config';
import { withSpan } from '@portcullis/kit';
import { matchRule, requestStatKey, sharedCounterEntries } from './config/match.js';
import type { Limit, RuleNode, RuleSet } from './config/rule-set.js';
import { buildDynamicMetadata } from './dynamic-metadata.js';
import { BackendError, NoConfigError, RequestError } from './errors.js';
import type { LimitItem, Limiter } from './limiter/limiter.js';
import type { StatCounter } from './stats/stat-counter.js';
import type { Stats } from './stats/stats.js';
import type {
  Code,
  DescriptorStatus,
  Entry,
  HeaderValue,
  RateLimitRequest,
  RateLimitResponse,
  RequestDescriptor,
} from './types.js';

export const UINT32_MAX = 4_294_967_295;
const TRACER = 'portcullis-ratelimit';

export interface ServiceOptions {
  limiter: Limiter;
  stats: Stats;
  /** `SHADOW_MODE`: every over-limit answer becomes OK (statuses keep their codes). */
  shadowMode: boolean;
  /** `QUOTA_MODE`: every descriptor is a quota descriptor, even one no rule matches. */
  quotaMode: boolean;
  /** `RESPONSE_DYNAMIC_METADATA`: the response carries `dynamic_metadata`. */
  dynamicMetadata: boolean;
  responseHeaders: { enabled: boolean; limit: string; remaining: string; reset: string };
}

type Resolved =
  | { kind: 'none' }
  | { kind: 'unlimited'; node: RuleNode }
  | { kind: 'limit'; limits: readonly Limit[]; node: RuleNode | undefined };

const NONE: Resolved = { kind: 'none' };

/** The limits of a descriptor left to count once `replaces` is applied, and the rule they come from. */
interface Enforced {
  node: RuleNode | undefined;
  limits: readonly Limit[];
}

/** `ShouldRateLimit`: the pipeline every transport (gRPC, `/json`) calls. */
export class RateLimitService {
  private rules: RuleSet | undefined;
  private readonly serviceErrors: StatCounter;
  private readonly backendErrors: StatCounter;
  private readonly globalShadow: StatCounter;

  constructor(private readonly o: ServiceOptions) {
    this.serviceErrors = o.stats.counter('call.should_rate_limit.service_error');
    this.backendErrors = o.stats.counter('call.should_rate_limit.redis_error');
    this.globalShadow = o.stats.counter('global_shadow_mode');
  }

  setRules(rules: RuleSet): void {
    this.rules = rules;
  }

  currentRules(): RuleSet | undefined {
    return this.rules;
  }

  /**
   * Rejects with `RequestError` for a request that cannot be decided (empty domain or descriptors, an
   * override without a unit), `NoConfigError` before any configuration loaded, `BackendError` when the
   * counter store fails.
   */
  shouldRateLimit(request: RateLimitRequest): Promise<RateLimitResponse> {
    return withSpan(TRACER, 'ShouldRateLimit Execution', (span) => {
      if (span.isRecording()) {
        span.setAttributes({
          'ratelimit.domain': request.domain,
          'ratelimit.descriptors': request.descriptors.length,
        });
      }
      return this.decide(request);
    });
  }

  private async decide(request: RateLimitRequest): Promise<RateLimitResponse> {
    const resolved = this.resolve(request);
    let replaced: Set<string> | undefined;
    for (const r of resolved) {
      if (r.kind === 'none' || !r.node || r.node.replaces.length === 0) continue;
      replaced ??= new Set();
      for (const name of r.node.replaces) replaced.add(name);
    }

    const enforced: Array<Enforced | undefined> = [];
    const items: Array<LimitItem | undefined> = [];
    for (let i = 0; i < resolved.length; i++) {
      const r = resolved[i] as Resolved;
      const limits =
        r.kind !== 'limit'
          ? []
          : replaced
            ? r.limits.filter((l) => l.name === undefined || !replaced.has(l.name))
            : r.limits;
      const first = limits[0];
      if (r.kind !== 'limit' || !first) {
        enforced.push(undefined);
        items.push(undefined);
        continue;
      }
      const node = r.node;
      enforced.push({ node, limits });
      const { entries, hitsAddend } = request.descriptors[i] as RequestDescriptor;
      items.push({
        entries: node?.sharesCounter ? sharedCounterEntries(node, entries) : entries,
        limits,
        hitsAddend: hitsAddend ?? Math.max(1, request.hitsAddend),
        stats:
          first.stats ??
          this.o.stats.dynamicRule(
            request.domain,
            node ? requestStatKey(node, entries) : valueStatKey(entries),
          ),
      });
    }

    let statuses: DescriptorStatus[];
    try {
      statuses = await this.o.limiter.doLimit(request.domain, items);
    } catch (err: unknown) {
      if (err instanceof BackendError) this.backendErrors.value++;
      throw err;
    }
    const quota: boolean[] = [];
    let quotaModeEnabled = false;
    for (let i = 0; i < resolved.length; i++) {
      const unlimited = (resolved[i] as Resolved).kind === 'unlimited';
      if (unlimited) {
        statuses[i] = {
          code: 'OK',
          currentLimit: undefined,
          limitRemaining: UINT32_MAX,
          durationUntilResetSec: undefined,
        };
      }
      const nodeQuota = enforced[i]?.node?.quotaMode === true;
      if (nodeQuota) quotaModeEnabled = true;
      quota.push(!unlimited && (this.o.quotaMode || nodeQuota));
    }

    let overallCode = this.overallCode(statuses, quota);
    if (overallCode === 'OVER_LIMIT' && this.o.shadowMode) {
      overallCode = 'OK';
      this.globalShadow.value++;
    }
    return {
      overallCode,
      statuses,
      responseHeadersToAdd: this.o.responseHeaders.enabled ? this.limitHeaders(statuses, quota) : [],
      dynamicMetadata: this.o.dynamicMetadata
        ? buildDynamicMetadata(request, statuses, {
            metadataByDescriptor: enforced.map((r) => r?.node?.metadata),
            quotaByDescriptor: quota,
            quotaModeEnabled,
          })
        : undefined,
    };
  }

  /**
   * OVER_LIMIT when a descriptor that is not a quota descriptor is over its limit, or when there are quota
   * descriptors and every one of them is: quota limits are soft until all are spent.
   */
  private overallCode(statuses: readonly DescriptorStatus[], quota: readonly boolean[]): Code {
    let quotas = 0;
    let quotasOver = 0;
    for (let i = 0; i < statuses.length; i++) {
      const over = statuses[i]?.code === 'OVER_LIMIT';
      if (!quota[i]) {
        if (over) return 'OVER_LIMIT';
        continue;
      }
      quotas++;
      if (over) quotasOver++;
    }
    return quotas > 0 && quotasOver === quotas ? 'OVER_LIMIT' : 'OK';
  }

  private resolve(request: RateLimitRequest): Resolved[] {
    if (request.domain === '') this.fail('rate limit domain must not be empty');
    if (request.descriptors.length === 0) this.fail('rate limit descriptor list must not be empty');
    const rules = this.rules;
    if (!rules) {
      this.serviceErrors.value++;
      throw new NoConfigError();
    }
    const root = rules.domains.get(request.domain);
    const resolved: Resolved[] = [];
    for (let i = 0; i < request.descriptors.length; i++) {
      const d = request.descriptors[i] as RequestDescriptor;
      if (!root) {
        this.o.stats.domainNotFound(request.domain).value++;
        resolved.push(NONE);
      } else if (d.limit) {
        resolved.push({ kind: 'limit', limits: [this.overrideLimit(d, i)], node: undefined });
      } else {
        const node = matchRule(root, d.entries);
        if (!node || (!node.unlimited && !node.limit)) resolved.push(NONE);
        else if (node.unlimited) resolved.push({ kind: 'unlimited', node });
        else resolved.push({ kind: 'limit', limits: [node.limit as Limit, ...node.moreLimits], node });
      }
    }
    return resolved;
  }

  /** A request's own limit (`descriptors[i].limit`): a fixed window, as upstream, whatever the rules say. */
  private overrideLimit(d: RequestDescriptor, i: number): Limit {
    const override = d.limit as NonNullable<RequestDescriptor['limit']>;
    const unit =
      override.unit ??
      this.fail(
        `descriptors[${i}].limit.unit: a limit override needs a unit (one of ${RATE_LIMIT_UNITS.join(', ')}); descriptor ${describeEntries(d.entries)}`,
      );
    return {
      requestsPerUnit: override.requestsPerUnit,
      unit,
      unitSeconds: UNIT_SECONDS[unit],
      name: undefined,
      shadowMode: false,
      stats: undefined,
      algorithm: 'fixed_window',
      burst: undefined,
      keySuffix: '',
    };
  }

  private fail(message: string): never {
    this.serviceErrors.value++;
    throw new RequestError(message);
  }

  /**
   * `RateLimit-Limit`, `-Remaining` and `-Reset` of the most restrictive status: the one with the least
   * remaining, or the last one over its limit that is not a quota descriptor.
   */
  private limitHeaders(statuses: readonly DescriptorStatus[], quota: readonly boolean[]): HeaderValue[] {
    let pick: DescriptorStatus | undefined;
    statuses.forEach((s, i) => {
      if (!s.currentLimit) return;
      if ((s.code === 'OVER_LIMIT' && !quota[i]) || !pick || s.limitRemaining < pick.limitRemaining) pick = s;
    });
    if (!pick?.currentLimit) return [];
    const h = this.o.responseHeaders;
    return [
      { key: h.limit, value: String(pick.currentLimit.requestsPerUnit) },
      { key: h.remaining, value: String(pick.limitRemaining) },
      { key: h.reset, value: String(pick.durationUntilResetSec ?? 0) },
    ];
  }
}

/** `key_value.key2_value2…` from the request's own values: detailed metrics and overrides. */
function valueStatKey(entries: readonly Entry[]): string {
  return entries.map((e) => (e.value === '' ? e.key : `${e.key}_${e.value}`)).join('.');
}

/** `(key=value, key2=value2)`, naming a descriptor in an error. */
function describeEntries(entries: readonly Entry[]): string {
  return `(${entries.map((e) => `${e.key}=${e.value}`).join(', ')})`;
}
