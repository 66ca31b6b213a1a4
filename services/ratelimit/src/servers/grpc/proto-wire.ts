/** The protobuf wire types this server reads or writes. */
export const WIRE = { VARINT: 0, FIXED64: 1, LENGTH: 2, START_GROUP: 3, END_GROUP: 4, FIXED32: 5 } as const;

/** A message that is not valid protobuf: a truncated or overlong varint or length, a bad wire type or tag. */
export class MalformedMessageError extends Error {}

/**
 * Reads protobuf fields from `buf` between `pos` and `end`. Strings are decoded as Node decodes UTF-8, an
 * invalid sequence becoming U+FFFD, as protobufjs reads them from a Buffer.
 */
export class ProtoReader {
  pos = 0;
  end = 0;
  private buf: Buffer = Buffer.alloc(0);

  reset(buf: Buffer, start: number, end: number): this {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    return this;
  }

  /** A varint's low 32 bits, unsigned, as protobufjs reads `uint32` (an int32 is this `| 0`). */
  uint32(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const b = this.byte();
      if (shift < 32) value |= (b & 0x7f) << shift;
      if (b < 0x80) return value >>> 0;
    }
    throw new MalformedMessageError('varint longer than 10 bytes');
  }

  /** A uint64 as a number: exact up to 2^53, and at least 2^53 above it. */
  uint64(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new MalformedMessageError('varint longer than 10 bytes');
  }

  /** The next field's number and wire type, `(number << 3) | type`; field number 0 is malformed. */
  tag(): number {
    const tag = this.uint32();
    if (tag >>> 3 === 0) throw new MalformedMessageError('field number 0');
    return tag;
  }

  /** The end of the length-delimited field that starts here; `pos` moves to its content. */
  lengthEnd(): number {
    const length = this.uint32();
    const end = this.pos + length;
    if (end > this.end) throw new MalformedMessageError('length past the end of the message');
    return end;
  }

  string(): string {
    const end = this.lengthEnd();
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  /** Skips a field of a number this reader does not know, of any wire type (groups to their end). */
  skip(tag: number): void {
    switch (tag & 7) {
      case WIRE.VARINT:
        this.uint64();
        return;
      case WIRE.FIXED64:
        this.advance(8);
        return;
      case WIRE.LENGTH:
        this.pos = this.lengthEnd();
        return;
      case WIRE.START_GROUP:
        for (let inner = this.tag(); (inner & 7) !== WIRE.END_GROUP; inner = this.tag()) this.skip(inner);
        return;
      case WIRE.FIXED32:
        this.advance(4);
        return;
      default:
        throw new MalformedMessageError(`wire type ${tag & 7} where a field was expected`);
    }
  }

  /** Throws unless `tag` has wire type `type` (a known field sent as another type). */
  expect(tag: number, type: number): void {
    if ((tag & 7) !== type) throw new MalformedMessageError(`field ${tag >>> 3}: wire type ${tag & 7}`);
  }

  private byte(): number {
    if (this.pos >= this.end) throw new MalformedMessageError('truncated varint');
    return this.buf[this.pos++] ?? 0;
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new MalformedMessageError('truncated fixed-width field');
    this.pos += n;
  }
}

/**
 * Writes one message into a scratch buffer reused from call to call (encoding is synchronous), then copies
 * it out once, behind the 5-byte gRPC message prefix: one allocation per message.
 */
export class ProtoWriter {
  private buf = Buffer.allocUnsafeSlow(4096);
  private pos = 0;

  reset(): this {
    this.pos = 0;
    return this;
  }

  /** The message written since `reset()`, as one uncompressed gRPC length-prefixed message. */
  framed(): Buffer {
    const out = Buffer.allocUnsafe(this.pos + 5);
    out[0] = 0;
    out.writeUInt32BE(this.pos, 1);
    this.buf.copy(out, 5, 0, this.pos);
    return out;
  }

  /** A non-negative integer below 2^53, or a negative int64 in ten bytes as protobuf writes it. */
  varint(field: number, n: number): void {
    this.tag(field, WIRE.VARINT);
    this.rawVarint(n);
  }

  string(field: number, s: string): void {
    this.tag(field, WIRE.LENGTH);
    const length = Buffer.byteLength(s, 'utf8');
    this.rawVarint(length);
    this.ensure(length);
    this.pos += this.buf.write(s, this.pos, length, 'utf8');
  }

  double(field: number, n: number): void {
    this.tag(field, WIRE.FIXED64);
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(n, this.pos);
  }

  /** Starts a nested message; returns where its length goes, for `end()`. */
  begin(field: number): number {
    this.tag(field, WIRE.LENGTH);
    this.ensure(1);
    return this.pos++;
  }

  /** Ends the nested message `begin()` started, moving its content if its length needs more than one byte. */
  end(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    let size = 1;
    for (let n = length; n >= 0x80; n = Math.floor(n / 128)) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos = at;
    this.rawVarint(length);
    this.pos += length;
  }

  private tag(field: number, type: number): void {
    this.rawVarint(field * 8 + type);
  }

  private rawVarint(n: number): void {
    this.ensure(10);
    if (n < 0) {
      for (let v = BigInt.asUintN(64, BigInt(n)); ; v >>= 7n) {
        if (v < 0x80n) {
          this.buf[this.pos++] = Number(v);
          return;
        }
        this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      }
    }
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}
