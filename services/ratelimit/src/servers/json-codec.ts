import type { RateLimitUnit } from '@portcullis/config';
import { RequestError } from '../errors.js';
import { checkDescriptorCount, checkEntryCount, type RequestBounds } from './request-bounds.js';
import { MAX_HITS_ADDEND, readUint } from './request-integer.js';
import type {
  DescriptorStatus,
  Entry,
  RateLimitRequest,
  RateLimitResponse,
  RequestDescriptor,
} from '../types.js';

/** Enum numbers of `RateLimitResponse.RateLimit.Unit` and `envoy.type.v3.RateLimitUnit`. */
export const PROTO_UNITS = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR', 'WEEK'] as const;
const UINT32_MAX = 4_294_967_295;

type Json = Record<string, unknown>;

/**
 * Reads a `RateLimitRequest` in the proto3 JSON mapping: lowerCamelCase or original field names, integers
 * as numbers or strings, enums as names or numbers, `null` as unset, unknown fields rejected. Throws a
 * `RequestError` naming the field, or the first descriptor or entry past `bounds` before reading any of
 * the list it is in.
 */
export function decodeJsonRequest(body: unknown, bounds: RequestBounds): RateLimitRequest {
  const root = object(body, '');
  const fields = pick(root, '', ['domain', 'descriptors', 'hitsAddend']);
  const descriptors = list(fields.descriptors, 'descriptors');
  checkDescriptorCount(descriptors.length, bounds);
  return {
    domain: string(fields.domain, 'domain'),
    descriptors: descriptors.map((d, i) => descriptor(d, { index: i, bounds })),
    hitsAddend: readUint(fields.hitsAddend, { path: 'hitsAddend', max: UINT32_MAX }) ?? 0,
  };
}

function descriptor(v: unknown, at: { index: number; bounds: RequestBounds }): RequestDescriptor {
  const path = `descriptors[${at.index}]`;
  const f = pick(object(v, path), path, ['entries', 'limit', 'hitsAddend']);
  const entries = list(f.entries, `${path}.entries`);
  checkEntryCount(at.index, entries.length, at.bounds);
  const d: RequestDescriptor = {
    entries: entries.map((e, i) => entry(e, `${path}.entries[${i}]`)),
  };
  if (f.limit !== undefined && f.limit !== null) {
    const l = pick(object(f.limit, `${path}.limit`), `${path}.limit`, ['requestsPerUnit', 'unit']);
    d.limit = {
      requestsPerUnit:
        readUint(l.requestsPerUnit, { path: `${path}.limit.requestsPerUnit`, max: UINT32_MAX }) ?? 0,
      unit: unit(l.unit, `${path}.limit.unit`),
    };
  }
  const hits = readUint(f.hitsAddend, { path: `${path}.hitsAddend`, max: MAX_HITS_ADDEND });
  if (hits !== undefined) d.hitsAddend = hits;
  return d;
}

function entry(v: unknown, path: string): Entry {
  const f = pick(object(v, path), path, ['key', 'value']);
  return { key: string(f.key, `${path}.key`), value: string(f.value, `${path}.value`) };
}

/** The known fields by their lowerCamelCase names, accepting the original snake_case names too. */
function pick(o: Json, path: string, names: readonly string[]): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    const camel = k.includes('_') ? k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) : k;
    if (!names.includes(camel)) throw new RequestError(`${path ? `${path}.` : ''}${k}: unknown field`);
    out[camel] = v;
  }
  return out;
}

function object(v: unknown, path: string): Json {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Json;
  throw new RequestError(`${path || 'body'}: expected a JSON object`);
}

function list(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  throw new RequestError(`${path}: expected an array`);
}

function string(v: unknown, path: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  throw new RequestError(`${path}: expected a string`);
}

function unit(v: unknown, path: string): RateLimitUnit | undefined {
  if (v === undefined || v === null) return undefined;
  const name = typeof v === 'number' ? PROTO_UNITS[v] : v;
  if (name === 'UNKNOWN') return undefined;
  const found = PROTO_UNITS.find((u) => u === name);
  if (found && found !== 'UNKNOWN') return found;
  throw new RequestError(`${path}: unknown unit ${JSON.stringify(v)}`);
}

/**
 * Writes a `RateLimitResponse` in the proto3 JSON mapping. Default values are left out as upstream's
 * encoder does, except `limitRemaining` on an allowed status with a limit (so a client sees "0 left"), and
 * `requestsPerUnit`, always present in `currentLimit`.
 */
export function encodeJsonResponse(r: RateLimitResponse): Json {
  const out: Json = { overallCode: r.overallCode, statuses: r.statuses.map(encodeStatus) };
  if (r.responseHeadersToAdd.length > 0) out.responseHeadersToAdd = r.responseHeadersToAdd;
  // the proto3 JSON form of a google.protobuf.Struct is the plain JSON object
  if (r.dynamicMetadata) out.dynamicMetadata = r.dynamicMetadata;
  return out;
}

function encodeStatus(s: DescriptorStatus): Json {
  const out: Json = { code: s.code };
  if (s.currentLimit) {
    const limit: Json = {};
    if (s.currentLimit.name) limit.name = s.currentLimit.name;
    limit.requestsPerUnit = s.currentLimit.requestsPerUnit;
    limit.unit = s.currentLimit.unit;
    out.currentLimit = limit;
  }
  if (s.code === 'OK' && (s.currentLimit || s.limitRemaining !== 0)) out.limitRemaining = s.limitRemaining;
  if (s.durationUntilResetSec !== undefined) out.durationUntilReset = `${s.durationUntilResetSec}s`;
  return out;
}
