import type { StructValue } from '@portcullis/config';
import type { DescriptorStatus, RateLimitRequest } from './types.js';

type Struct = Record<string, StructValue>;

/**
 * The response's `dynamic_metadata` (`RESPONSE_DYNAMIC_METADATA=true`), as upstream builds it: the domain,
 * each request descriptor (`entries` as `key=value`, its `limit` override and `hitsAddend` when given), the
 * request's `hitsAddend` when not 0, and `metadata`, the deep merge of the `metadata` of every enforced rule
 * that is not over its limit, the first rule to set a key winning. `metadataByDescriptor[i]` is the
 * metadata of the rule enforced for descriptor `i`, if any.
 */
export function buildDynamicMetadata(
  request: RateLimitRequest,
  statuses: readonly DescriptorStatus[],
  metadataByDescriptor: ReadonlyArray<Readonly<Struct> | undefined>,
): Struct {
  const out: Struct = {
    domain: request.domain,
    descriptors: request.descriptors.map((d) => {
      const described: Struct = { entries: d.entries.map((e) => `${e.key}=${e.value}`) };
      if (d.limit)
        described.limit = `requests_per_unit:${d.limit.requestsPerUnit} unit:${d.limit.unit ?? 'UNKNOWN'}`;
      if (d.hitsAddend !== undefined) described.hitsAddend = d.hitsAddend;
      return described;
    }),
  };
  if (request.hitsAddend !== 0) out.hitsAddend = request.hitsAddend;
  const merged: Struct = {};
  metadataByDescriptor.forEach((m, i) => {
    if (m && statuses[i]?.code !== 'OVER_LIMIT') mergeMissing(merged, m);
  });
  if (Object.keys(merged).length > 0) out.metadata = merged;
  return out;
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
