// DiscoveryResponse on the wire, written by hand from pieces encoded once per resource: a state-of-the-world
// response resends every resource of its type, but only the resources that changed are encoded again.
// Field numbers from envoy/service/discovery/v3/discovery.proto and google/protobuf/any.proto.

const VERSION_INFO = 1;
const RESOURCES = 2;
const TYPE_URL = 4;
const NONCE = 5;
const ANY_TYPE_URL = 1;
const ANY_VALUE = 2;
const LENGTH_DELIMITED = 2;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

/** Tag, length and bytes of one length-delimited field. */
function fieldSize(length: number): number {
  return 1 + varintSize(length) + length;
}

/** Writes field `field` holding `bytes` into `buf` at `at`; returns where it ends. */
function writeField(buf: Buffer, at: number, [field, bytes]: readonly [number, Uint8Array]): number {
  buf[at++] = (field << 3) | LENGTH_DELIMITED;
  at = writeVarint(buf, at, bytes.length);
  buf.set(bytes, at);
  return at + bytes.length;
}

/**
 * One element of `DiscoveryResponse.resources` as it appears in the response: field 2's tag and length,
 * then the `google.protobuf.Any` holding `value` under `typeUrl`.
 */
export function encodeResourceField(typeUrl: string, value: Uint8Array): Buffer {
  const url = Buffer.from(typeUrl, 'utf8');
  const any = fieldSize(url.length) + fieldSize(value.length);
  const buf = Buffer.allocUnsafe(fieldSize(any));
  let at = 0;
  buf[at++] = (RESOURCES << 3) | LENGTH_DELIMITED;
  at = writeVarint(buf, at, any);
  at = writeField(buf, at, [ANY_TYPE_URL, url]);
  writeField(buf, at, [ANY_VALUE, value]);
  return buf;
}

/** A whole DiscoveryResponse from its resources' pre-encoded fields (`encodeResourceField`). */
export function encodeDiscoveryResponse(o: {
  versionInfo: string;
  typeUrl: string;
  nonce: string;
  resourceFields: readonly Uint8Array[];
}): Buffer {
  const version = Buffer.from(o.versionInfo, 'utf8');
  const rest = [
    [TYPE_URL, Buffer.from(o.typeUrl, 'utf8')],
    [NONCE, Buffer.from(o.nonce, 'utf8')],
  ] as const;
  // proto3 leaves empty strings out
  const present = (bytes: Buffer): boolean => bytes.length > 0;
  let size = present(version) ? fieldSize(version.length) : 0;
  for (const f of o.resourceFields) size += f.length;
  for (const [, bytes] of rest) if (present(bytes)) size += fieldSize(bytes.length);
  const buf = Buffer.allocUnsafe(size);
  let at = present(version) ? writeField(buf, 0, [VERSION_INFO, version]) : 0;
  for (const f of o.resourceFields) {
    buf.set(f, at);
    at += f.length;
  }
  for (const f of rest) if (present(f[1])) at = writeField(buf, at, f);
  return buf;
}
