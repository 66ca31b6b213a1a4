import type { StructValue } from '@portcullis/config';
import type { DescriptorStatus, RateLimitRequest } from './types.js';

type Struct = Record<string, StructValue>;

/** What the rules enforced for each descriptor add to the metadata. */
export interface EnforcedRules {
  /** The `metadata` of the rule enforced for descriptor `i`, if any. */
  metadataByDescriptor: ReadonlyArray<Readonly<Struct> | undefined>;
  /** Whether descriptor `i` is a quota descriptor (its rule's `quota_mode`, or `QUOTA_MODE`). */
  quotaByDescriptor: readonly boolean[];
  /** Whether an enforced rule has `quota_mode` (`QUOTA_MODE` alone does not count, as upstream). */
  quotaModeEnabled: boolean;
}

/**
 * The response's `dynamic_metadata` (`RESPONSE_DYNAMIC_METADATA=true`), as upstream builds it: the domain,
 * each request descriptor (`entries` as `key=value`, its `limit` override and `hitsAddend` when given), the
 * request's `hitsAddend` when not 0, `quotaModeViolations` (the indexes of the quota descriptors over their
 * limit, when there are any), `quotaModeEnabled`, and `metadata`, the deep merge of the `metadata` of every
 * enforced rule that is not over its limit, the first rule to set a key winning.
 */
export function buildDynamicMetadata(
  request: RateLimitRequest,
  statuses: readonly DescriptorStatus[],
  rules: EnforcedRules,
): Struct {
  const out: Struct = {
    domain: request.domain,
    descriptors: request.descriptors.map((d) => {
      const described: Struct = { entries: d.entries.map((e) => `${e.key}=${e.value}`) };
      if (d.limit)
        described.limit = `requests_per_unit:${d.limit.requestsPerUnit} unit:${overrideUnitText(d.limit.unit)}`;
      if (d.hitsAddend !== undefined) described.hitsAddend = d.hitsAddend;
      return described;
    }),
  };
  if (request.hitsAddend !== 0) out.hitsAddend = request.hitsAddend;
  const violations = statuses.flatMap((s, i) =>
    s.code === 'OVER_LIMIT' && rules.quotaByDescriptor[i] ? [i] : [],
  );
  if (violations.length > 0) out.quotaModeViolations = violations;
  out.quotaModeEnabled = rules.quotaModeEnabled;
  const merged: Struct = {};
  rules.metadataByDescriptor.forEach((m, i) => {
    if (m && statuses[i]?.code !== 'OVER_LIMIT') mergeMissing(merged, m);
  });
  if (Object.keys(merged).length > 0) out.metadata = merged;
  return out;
}

/**
 * The override's unit as Go's prototext prints an `envoy.type.v3.RateLimitUnit`: that enum has no name for
 * WEEK (rls.proto's 7), so upstream prints the number.
 */
function overrideUnitText(unit: string | undefined): string {
  if (unit === undefined) return 'UNKNOWN';
  return unit === 'WEEK' ? '7' : unit;
}

function isStruct(v: StructValue | undefined): v is Struct {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Copies into `target` what it lacks, merging nested maps; values already there are kept. */
function mergeMissing(target: Struct, source: Readonly<Struct>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing === undefined) target[key] = structuredClone(value);
    else if (isStruct(existing) && isStruct(value)) mergeMissing(existing, value);
  }
}
