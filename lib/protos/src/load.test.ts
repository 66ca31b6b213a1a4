import { describe, expect, it } from 'vitest';
import { loadSync, type MessageTypeDefinition } from '@grpc/proto-loader';
import { PORTCULLIS_PROTO_DIR, PROTO_FILES, SHIPPED_PROTO_DIRS } from './load.js';

interface DescriptorProto {
  name: string;
  field: Array<{ name: string; number: number; typeName: string }>;
  nestedType: DescriptorProto[];
  enumType: Array<{ name: string; value: Array<{ name: string; number: number }> }>;
}

/** Loads with upstream's snake_case names so the assertions read like the .proto files. */
function load(files: readonly string[], includeDirs: readonly string[]): (path: string) => DescriptorProto {
  const def = loadSync([...files], { keepCase: true, includeDirs: [...includeDirs] });
  return (path) => {
    const [top, ...nested] = path.split('/');
    let type = (def[top ?? ''] as MessageTypeDefinition<object, object> | undefined)?.type as DescriptorProto | undefined;
    for (const name of nested) type = type?.nestedType.find((t) => t.name === name);
    if (!type) throw new Error(`no message ${path}`);
    return type;
  };
}

const numbers = (t: DescriptorProto): Array<[string, number]> => t.field.map((f) => [f.name, f.number]);

describe('rate limit protos', () => {
  const ours = load(
    [PROTO_FILES.rateLimitService, PROTO_FILES.rateLimitConfig],
    [PORTCULLIS_PROTO_DIR, ...SHIPPED_PROTO_DIRS],
  );
  const shipped = load([PROTO_FILES.rateLimitService], SHIPPED_PROTO_DIRS);
  const descriptor = 'envoy.extensions.common.ratelimit.v3.RateLimitDescriptor';

  it('the copy shipped in @grpc/grpc-js-xds is older than upstream: no per-descriptor hits_addend', () => {
    expect(numbers(shipped(descriptor))).toEqual([
      ['entries', 1],
      ['limit', 2],
    ]);
  });

  it('ours carries RateLimitDescriptor.hits_addend = 3 as google.protobuf.UInt64Value', () => {
    const hitsAddend = ours(descriptor).field.find((f) => f.name === 'hits_addend');
    expect(hitsAddend).toMatchObject({ number: 3, typeName: 'google.protobuf.UInt64Value' });
    expect(numbers(ours(descriptor))).toEqual([
      ['entries', 1],
      ['limit', 2],
      ['hits_addend', 3],
    ]);
  });

  it('keeps upstream field numbers on the request and response', () => {
    expect(numbers(ours('envoy.service.ratelimit.v3.RateLimitRequest'))).toEqual([
      ['domain', 1],
      ['descriptors', 2],
      ['hits_addend', 3],
    ]);
    expect(numbers(ours('envoy.service.ratelimit.v3.RateLimitResponse'))).toEqual([
      ['overall_code', 1],
      ['statuses', 2],
      ['response_headers_to_add', 3],
      ['request_headers_to_add', 4],
      ['raw_body', 5],
      ['dynamic_metadata', 6],
      ['quota', 7],
    ]);
    expect(numbers(ours('envoy.service.ratelimit.v3.RateLimitResponse/DescriptorStatus'))).toEqual([
      ['code', 1],
      ['current_limit', 2],
      ['limit_remaining', 3],
      ['duration_until_reset', 4],
      ['quota', 5],
    ]);
  });

  it('has the WEEK unit, which the shipped copy lacks', () => {
    const week = (find: typeof ours) =>
      find('envoy.service.ratelimit.v3.RateLimitResponse/RateLimit')
        .enumType.find((e) => e.name === 'Unit')
        ?.value.find((v) => v.name === 'WEEK')?.number;
    expect(week(ours)).toBe(7);
    expect(week(shipped)).toBeUndefined();
  });

  it('has the xDS config resource of envoyproxy/ratelimit', () => {
    expect(numbers(ours('ratelimit.config.ratelimit.v3.RateLimitDescriptor'))).toEqual([
      ['key', 1],
      ['value', 2],
      ['rate_limit', 3],
      ['descriptors', 4],
      ['shadow_mode', 5],
      ['detailed_metric', 6],
      ['quota_mode', 7],
      ['metadata', 8],
    ]);
    expect(numbers(ours('ratelimit.config.ratelimit.v3.RateLimitPolicy'))).toEqual([
      ['unit', 1],
      ['requests_per_unit', 2],
      ['unlimited', 3],
      ['name', 4],
      ['replaces', 5],
    ]);
  });
});
