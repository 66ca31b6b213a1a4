import { MAX_CONCURRENT, type EndpointResponse, type ForwardTarget } from '@portcullis/config';
import type { Capture, CaptureInput, SignatureCheck, StoredSignature } from '../contract/capture-records.js';
import type { EndpointKind, EndpointRecord } from './types.js';

// How records look in Redis. A capture is a stream entry with two fields: `m`, the metadata as JSON, and
// `b`, the body bytes as they came (binary-safe: always read back with ioredis' …Buffer commands, which
// leave bytes alone; the plain ones decode as UTF-8 and corrupt invalid sequences). The forwarding worker
// will read entries with XREADGROUP and decode them with `decodeCaptureEntry`.

interface CaptureMeta {
  receivedAt: number;
  method: string;
  url: string;
  nestedPath: string;
  httpVersion: string;
  rawHeaders: string[];
  remoteAddress: string;
  bodySha256: string;
  signature?: SignatureCheck;
}

/** The XADD field/value arguments of a capture. */
export function encodeCaptureFields(c: CaptureInput): [string, string, string, Buffer] {
  const meta: CaptureMeta = {
    receivedAt: c.receivedAt,
    method: c.method,
    url: c.url,
    nestedPath: c.nestedPath,
    httpVersion: c.httpVersion,
    rawHeaders: [...c.rawHeaders],
    remoteAddress: c.remoteAddress,
    bodySha256: c.bodySha256,
    ...(c.signature ? { signature: c.signature } : {}),
  };
  return ['m', JSON.stringify(meta), 'b', c.body];
}

/** One `[id, [field, value, …]]` entry of XRANGE/XREAD(GROUP) in Buffer form. Throws on a foreign entry. */
export function decodeCaptureEntry(entry: [id: Buffer, fields: Buffer[]]): Capture {
  const [id, fields] = entry;
  let meta: Buffer | undefined;
  let body: Buffer | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = fields[i]?.toString();
    if (name === 'm') meta = fields[i + 1];
    else if (name === 'b') body = fields[i + 1];
  }
  const m = meta === undefined ? undefined : (JSON.parse(meta.toString('utf8')) as Partial<CaptureMeta>);
  if (!m || !isCaptureMeta(m)) throw new Error(`stream entry ${id.toString()} is not a capture`);
  return { ...m, id: id.toString(), body: body ?? Buffer.alloc(0) };
}

function isCaptureMeta(m: Partial<CaptureMeta>): m is CaptureMeta {
  return (
    typeof m.receivedAt === 'number' &&
    typeof m.method === 'string' &&
    typeof m.url === 'string' &&
    typeof m.nestedPath === 'string' &&
    typeof m.httpVersion === 'string' &&
    Array.isArray(m.rawHeaders) &&
    m.rawHeaders.every((h) => typeof h === 'string') &&
    typeof m.remoteAddress === 'string' &&
    typeof m.bodySha256 === 'string'
  );
}

/** The endpoint HASH fields (targets live in their own HASH). */
export function encodeEndpointFields(r: Omit<EndpointRecord, 'forward'>): string[] {
  return [
    ...['name', r.name, 'kind', r.kind, 'tokenSha256', r.tokenSha256, 'ownerId', r.ownerId],
    ...['resource', r.resource],
    ...['createdAt', r.createdAt, 'maxRequests', String(r.retention.maxRequests)],
    ...['maxAgeMs', String(r.retention.maxAgeMs)],
    ...(r.response ? ['response', JSON.stringify(r.response)] : []),
  ];
}

/** HGETALL of the endpoint and of its targets; undefined when the endpoint HASH is missing. */
export function decodeEndpoint(
  id: string,
  fields: Record<string, string>,
  targets: Record<string, string>,
): EndpointRecord | undefined {
  const kind = fields.kind;
  if (kind !== 'anonymous' && kind !== 'account' && kind !== 'managed') return undefined;
  const forward = Object.entries(targets)
    .sort(([a], [b]) => Number(a) - Number(b))
    // written before targets had maxConcurrent (an inbox not yet upgraded): the default, not no slot at all
    .map(([, json]): ForwardTarget => ({
      maxConcurrent: MAX_CONCURRENT.default,
      ...(JSON.parse(json) as Omit<ForwardTarget, 'maxConcurrent'> & { maxConcurrent?: number }),
    }));
  return {
    id,
    name: fields.name ?? '',
    kind: kind satisfies EndpointKind,
    tokenSha256: fields.tokenSha256 ?? '',
    ownerId: fields.ownerId ?? '',
    resource: fields.resource ?? '',
    createdAt: fields.createdAt ?? '',
    retention: { maxRequests: Number(fields.maxRequests), maxAgeMs: Number(fields.maxAgeMs) },
    forward,
    ...(fields.signature ? { signature: JSON.parse(fields.signature) as StoredSignature } : {}),
    ...(fields.response ? { response: JSON.parse(fields.response) as EndpointResponse } : {}),
  };
}
