import type { StructValue } from '@portcullis/config';
import type { Code, Entry, RateLimitRequest, RateLimitResponse, RequestDescriptor } from '../../types.js';
import { PROTO_UNITS } from '../json-codec.js';
import { checkDescriptorCount, checkEntryCount, type RequestBounds } from '../request-bounds.js';
import { MAX_HITS_ADDEND, readUint } from '../request-integer.js';
import { ProtoReader, ProtoWriter, WIRE } from './proto-wire.js';

// envoy.service.ratelimit.v3 (protos/envoy/service/ratelimit/v3/rls.proto) and the descriptor of
// envoy.extensions.common.ratelimit.v3, read straight into the service's types and written from them.

const reader = new ProtoReader();
const writer = new ProtoWriter();

/**
 * Decodes a `RateLimitRequest` from the whole of `buf`. Unknown fields are skipped; malformed protobuf
 * throws `MalformedMessageError`. A descriptor or entry past `bounds` throws a `RequestError` as soon as it
 * is met, the rest of the message unread. A descriptor's `hits_addend` above 2^53 − 1 is kept inexact here
 * and refused by `requireExactHitsAddends`, as a request error rather than a malformed message.
 */
export function decodeRateLimitRequest(buf: Buffer, bounds: RequestBounds): RateLimitRequest {
  const end = buf.length;
  const r = reader.reset(buf, 0, end);
  let domain = '';
  const descriptors: RequestDescriptor[] = [];
  let hitsAddend = 0;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag >>> 3) {
      case 1:
        r.expect(tag, WIRE.LENGTH);
        domain = r.string();
        break;
      case 2:
        r.expect(tag, WIRE.LENGTH);
        checkDescriptorCount(descriptors.length + 1, bounds);
        descriptors.push(nested(r, (inner) => descriptor(inner, descriptors.length, bounds)));
        break;
      case 3:
        r.expect(tag, WIRE.VARINT);
        hitsAddend = r.uint32();
        break;
      default:
        r.skip(tag);
    }
  }
  return { domain, descriptors, hitsAddend };
}

function descriptor(r: ProtoReader, index: number, bounds: RequestBounds): RequestDescriptor {
  const entries: Entry[] = [];
  const d: RequestDescriptor = { entries };
  while (r.pos < r.end) {
    const tag = r.tag();
    switch (tag >>> 3) {
      case 1:
        r.expect(tag, WIRE.LENGTH);
        checkEntryCount(index, entries.length + 1, bounds);
        entries.push(nested(r, entry));
        break;
      case 2:
        r.expect(tag, WIRE.LENGTH);
        d.limit = nested(r, limitOverride);
        break;
      case 3:
        r.expect(tag, WIRE.LENGTH);
        d.hitsAddend = nested(r, uint64Value);
        break;
      default:
        r.skip(tag);
    }
  }
  return d;
}

/** Reads the length-delimited message at `r.pos` with `read`, which reads fields until `r.end`. */
function nested<T>(r: ProtoReader, read: (r: ProtoReader) => T): T {
  const end = r.lengthEnd();
  const outer = r.end;
  r.end = end;
  const value = read(r);
  r.end = outer;
  return value;
}

function entry(r: ProtoReader): Entry {
  let key = '';
  let value = '';
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      r.expect(tag, WIRE.LENGTH);
      key = r.string();
    } else if (tag >>> 3 === 2) {
      r.expect(tag, WIRE.LENGTH);
      value = r.string();
    } else r.skip(tag);
  }
  return { key, value };
}

function limitOverride(r: ProtoReader): NonNullable<RequestDescriptor['limit']> {
  let requestsPerUnit = 0;
  let unit = 0;
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      r.expect(tag, WIRE.VARINT);
      requestsPerUnit = r.uint32();
    } else if (tag >>> 3 === 2) {
      r.expect(tag, WIRE.VARINT);
      unit = r.uint32() | 0;
    } else r.skip(tag);
  }
  // envoy.type.v3.RateLimitUnit names no WEEK yet; upstream reads its number 7 as rls.proto's WEEK
  const name = unit > 0 ? PROTO_UNITS[unit] : undefined;
  return { requestsPerUnit, unit: name === 'UNKNOWN' ? undefined : name };
}

/** `google.protobuf.UInt64Value`. */
function uint64Value(r: ProtoReader): number {
  let value = 0;
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      r.expect(tag, WIRE.VARINT);
      value = r.uint64();
    } else r.skip(tag);
  }
  return value;
}

/** Throws a `RequestError` naming the first descriptor whose `hits_addend` is above `MAX_HITS_ADDEND`. */
export function requireExactHitsAddends(request: RateLimitRequest): void {
  for (let i = 0; i < request.descriptors.length; i++) {
    const hits = request.descriptors[i]?.hitsAddend;
    if (hits !== undefined && hits > MAX_HITS_ADDEND) {
      readUint(hits, { path: `descriptors[${i}].hits_addend`, max: MAX_HITS_ADDEND });
    }
  }
}

const CODES: Readonly<Record<Code, number>> = { UNKNOWN: 0, OK: 1, OVER_LIMIT: 2 };
const UNIT_NUMBERS: ReadonlyMap<string, number> = new Map(PROTO_UNITS.map((u, i) => [u, i]));

/**
 * A `RateLimitResponse` as one gRPC message. The fields written are those grpc-js's serialiser wrote from
 * the same response, so the bytes are the same: the codes, `limit_remaining` and `requests_per_unit` even
 * when 0, a duration's seconds even when 0; an absent limit name, limit or duration is left out.
 */
export function encodeRateLimitResponse(r: RateLimitResponse): Buffer {
  const w = writer.reset();
  w.varint(1, CODES[r.overallCode]);
  for (const s of r.statuses) {
    const status = w.begin(2);
    w.varint(1, CODES[s.code]);
    const limit = s.currentLimit;
    if (limit) {
      const at = w.begin(2);
      w.varint(1, limit.requestsPerUnit >>> 0);
      w.varint(2, UNIT_NUMBERS.get(limit.unit) ?? 0);
      if (limit.name !== undefined) w.string(3, limit.name);
      w.end(at);
    }
    w.varint(3, s.limitRemaining >>> 0);
    if (s.durationUntilResetSec !== undefined) {
      const at = w.begin(4);
      w.varint(1, Math.trunc(s.durationUntilResetSec));
      w.end(at);
    }
    w.end(status);
  }
  for (const h of r.responseHeadersToAdd) {
    const at = w.begin(3);
    w.string(1, h.key);
    w.string(2, h.value);
    w.end(at);
  }
  if (r.dynamicMetadata) {
    const at = w.begin(6);
    writeStructFields(w, r.dynamicMetadata);
    w.end(at);
  }
  return w.framed();
}

/** `google.protobuf.Struct`'s `fields` map, in the object's key order as protobufjs writes it. */
function writeStructFields(w: ProtoWriter, fields: Readonly<Record<string, StructValue>>): void {
  for (const key of Object.keys(fields)) {
    const at = w.begin(1);
    w.string(1, key);
    writeValue(w, 2, fields[key] ?? null);
    w.end(at);
  }
}

/** `google.protobuf.Value`. */
function writeValue(w: ProtoWriter, field: number, v: StructValue): void {
  const at = w.begin(field);
  if (v === null) w.varint(1, 0);
  else if (typeof v === 'number') w.double(2, v);
  else if (typeof v === 'string') w.string(3, v);
  else if (typeof v === 'boolean') w.varint(4, v ? 1 : 0);
  else if (Array.isArray(v)) {
    const list = w.begin(6);
    for (const item of v) writeValue(w, 1, item);
    w.end(list);
  } else {
    const struct = w.begin(5);
    writeStructFields(w, v);
    w.end(struct);
  }
  w.end(at);
}
