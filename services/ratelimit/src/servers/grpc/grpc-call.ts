import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { gunzip, inflate, type InputType, type ZlibOptions } from 'node:zlib';
import { GRPC_STATUS, type GrpcStatus } from '@portcullis/kit';

/** The largest request message taken, grpc-js's default (4 MiB); a longer one is `RESOURCE_EXHAUSTED`. */
const MAX_RECEIVE_MESSAGE_BYTES = 4 * 1024 * 1024;
/** The encodings a compressed request may use, as grpc-js took them. */
const ACCEPT_ENCODING = 'identity,deflate,gzip';
/** The headers of a call's answer, as grpc-js sent them; `respond` copies them, so one object serves all. */
const RESPONSE_HEADERS: Readonly<OutgoingHttpHeaders> = Object.freeze({
  ':status': 200,
  'content-type': 'application/grpc+proto',
  'grpc-accept-encoding': ACCEPT_ENCODING,
  'grpc-encoding': 'identity',
});
const WAIT_FOR_TRAILERS = Object.freeze({ waitForTrailers: true });
/** `sendTrailers` copies them too. */
const OK_TRAILERS: Readonly<OutgoingHttpHeaders> = Object.freeze({
  'grpc-status': '0',
  'grpc-message': 'OK',
});
/** `grpc-timeout`: at most 8 digits and a unit (hours to nanoseconds), nothing else. */
const TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const TIMEOUT_UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};
/** The longest Node timer; a deadline further away (up to 11 years can be written) is no deadline. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a method does with the one request message of its call, once the client has sent all of it. */
export type RequestHandler = (call: GrpcCall, message: Buffer) => void;

/** A call's status; `headers` go along in a trailers-only answer. */
export interface CallStatus {
  code: GrpcStatus;
  details: string;
  headers?: OutgoingHttpHeaders;
}

const DEADLINE_EXCEEDED: CallStatus = { code: GRPC_STATUS.DEADLINE_EXCEEDED, details: 'Deadline exceeded' };
/** A request message that does not decode, as grpc-js and upstream's Go server answer it. */
export const UNDECODABLE: CallStatus = { code: GRPC_STATUS.INTERNAL, details: 'Error deserializing request' };

const CALL = Symbol('grpc call');
type CallStream = ServerHttp2Stream & { [CALL]?: GrpcCall };

/**
 * One call with a single request message (unary or server streaming), on its HTTP/2 stream: reads the
 * length-prefixed message (inflating gzip or deflate), enforces `grpc-timeout` and the size limit, and answers
 * with messages and a status, trailers-only when nothing else was sent. Once a status is sent or the client
 * has gone, everything else it is asked to send is dropped.
 */
export class GrpcCall {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The size of the message being received, prefix included; -1 until its prefix is read. */
  private frameBytes = -1;
  private message: Buffer | undefined;
  private finished = false;
  private timer: NodeJS.Timeout | undefined;
  /** The status trailers `sendStatus` leaves for the stream's `wantTrailers`. */
  trailers: OutgoingHttpHeaders | undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    private readonly handler: RequestHandler,
  ) {}

  /** Starts reading the request; answers at once a malformed or already expired `grpc-timeout`. */
  start(): void {
    const stream = this.stream as CallStream;
    stream[CALL] = this;
    const timeout = this.headers['grpc-timeout'];
    if (timeout !== undefined) {
      const match = TIMEOUT.exec(String(timeout));
      if (!match) {
        this.sendStatus({
          code: GRPC_STATUS.INTERNAL,
          details: `Invalid grpc-timeout value "${String(timeout)}"`,
        });
        return;
      }
      const ms = Math.ceil(Number(match[1]) * (TIMEOUT_UNIT_MS[match[2] ?? ''] ?? 0));
      if (ms === 0) {
        this.sendStatus(DEADLINE_EXCEEDED);
        return;
      }
      if (ms <= MAX_TIMER_MS) {
        this.timer = setTimeout(onDeadline, ms, this);
        // without a timer to clear, `open` reads the stream's state and nothing listens for its close
        stream.on('close', onClose);
      }
    }
    stream.on('data', onData);
    stream.on('end', onEnd);
  }

  /** False once a status was sent or the stream closed: nothing more can be said. */
  get open(): boolean {
    return !this.finished && !this.stream.destroyed && !this.stream.closed;
  }

  /** Answers a unary call: headers, `frame` (a length-prefixed message), then status OK. */
  sendUnary(frame: Buffer): void {
    if (!this.open) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.stream.respond(RESPONSE_HEADERS, WAIT_FOR_TRAILERS);
    // 'wantTrailers' comes once per stream: `on` spares the wrapper `once` builds
    this.stream.on('wantTrailers', sendOkTrailers);
    this.stream.end(frame);
  }

  /** Sends the headers of a streamed answer, then `frame`; later frames follow with `write()` again. */
  write(frame: Buffer): void {
    if (!this.open) return;
    if (!this.stream.headersSent) this.stream.respond(RESPONSE_HEADERS, WAIT_FOR_TRAILERS);
    this.stream.write(frame);
  }

  /** Ends the call with `code`: trailers-only if nothing was sent yet, else trailers after the messages. */
  sendStatus(status: CallStatus): void {
    if (!this.open) return;
    this.finished = true;
    clearTimeout(this.timer);
    if (!this.stream.headersSent) {
      respondStatus(this.stream, status);
      // what the client still sends is read and dropped, so its flow-control window never stalls
      this.stream.resume();
      return;
    }
    this.trailers = { 'grpc-status': String(status.code), 'grpc-message': encodeGrpcMessage(status.details) };
    this.stream.on('wantTrailers', sendPendingTrailers);
    this.stream.end();
  }

  /** A DATA frame's bytes of the request. */
  receive(chunk: Buffer): void {
    if (this.finished) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.frameBytes < 0) {
        if (this.buffered < 5) return;
        const length = this.flatten().readUInt32BE(1);
        if (length > MAX_RECEIVE_MESSAGE_BYTES) {
          this.sendStatus({
            code: GRPC_STATUS.RESOURCE_EXHAUSTED,
            details: `Received message larger than max (${length} vs ${MAX_RECEIVE_MESSAGE_BYTES})`,
          });
          return;
        }
        this.frameBytes = 5 + length;
      }
      if (this.buffered < this.frameBytes) return;
      const all = this.flatten();
      const rest = all.subarray(this.frameBytes);
      if (this.message) {
        this.sendStatus({
          code: GRPC_STATUS.UNIMPLEMENTED,
          details: `Received a second request message for ${this.path}`,
        });
        return;
      }
      this.message = all.subarray(0, this.frameBytes);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      this.frameBytes = -1;
    }
  }

  /** The client has sent all of its request. */
  halfClosed(): void {
    if (this.finished) return;
    const message = this.message;
    if (!message) {
      this.sendStatus({
        code: GRPC_STATUS.UNIMPLEMENTED,
        details: `Received no request message for ${this.path}`,
      });
      return;
    }
    const flag = message[0];
    if (flag === 0) {
      this.handler(this, message.subarray(5));
      return;
    }
    const encoding = String(this.headers['grpc-encoding'] ?? 'identity');
    if (flag !== 1 || encoding === 'identity') {
      // the spec's protocol error (grpc-go answers the same); grpc-js read such a message as uncompressed
      this.sendStatus({
        code: GRPC_STATUS.INTERNAL,
        details: `Received a message with flags ${flag} and encoding ${encoding}`,
      });
    } else if (encoding === 'gzip' || encoding === 'deflate') {
      decompress(encoding, message.subarray(5), (err, body) => {
        if (!err) this.handler(this, body);
        else if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
          this.sendStatus({
            code: GRPC_STATUS.RESOURCE_EXHAUSTED,
            details: `Received message that decompresses to a size larger than ${MAX_RECEIVE_MESSAGE_BYTES}`,
          });
        else this.sendStatus({ code: GRPC_STATUS.INTERNAL, details: 'Failed to decompress message' });
      });
    } else {
      this.sendStatus({
        code: GRPC_STATUS.UNIMPLEMENTED,
        details: `Received message compressed with unsupported encoding "${encoding}"`,
        headers: { 'grpc-accept-encoding': ACCEPT_ENCODING },
      });
    }
  }

  streamClosed(): void {
    this.finished = true;
    clearTimeout(this.timer);
  }

  private get path(): string {
    return this.headers[':path'] ?? '';
  }

  private flatten(): Buffer {
    const only = this.chunks.length === 1 ? this.chunks[0] : undefined;
    if (only) return only;
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }

  /** The call whose request `stream` carries, for the stream's listeners. */
  static of(stream: ServerHttp2Stream): GrpcCall {
    const call = (stream as CallStream)[CALL];
    if (!call) throw new Error('a gRPC stream listener ran on a stream without a call');
    return call;
  }
}

// The stream's listeners are shared functions that find their call on the stream: no closures per call.
function onData(this: ServerHttp2Stream, chunk: Buffer): void {
  GrpcCall.of(this).receive(chunk);
}
function onEnd(this: ServerHttp2Stream): void {
  GrpcCall.of(this).halfClosed();
}
function onClose(this: ServerHttp2Stream): void {
  GrpcCall.of(this).streamClosed();
}
function onDeadline(call: GrpcCall): void {
  call.sendStatus(DEADLINE_EXCEEDED);
}
function sendPendingTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(GrpcCall.of(this).trailers ?? {});
}
function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

function decompress(
  encoding: 'gzip' | 'deflate',
  body: InputType,
  done: (err: Error | null, result: Buffer) => void,
): void {
  const o: ZlibOptions = { maxOutputLength: MAX_RECEIVE_MESSAGE_BYTES };
  if (encoding === 'gzip') gunzip(body, o, done);
  else inflate(body, o, done);
}

/** A trailers-only answer: the call's status in the one HEADERS frame, which ends the stream. */
export function respondStatus(stream: ServerHttp2Stream, status: CallStatus): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      ':status': 200,
      'content-type': 'application/grpc+proto',
      'grpc-status': String(status.code),
      'grpc-message': encodeGrpcMessage(status.details),
      ...status.headers,
    },
    { endStream: true },
  );
}

/** `grpc-message` as the spec percent-encodes it: UTF-8, every byte outside printable ASCII and `%` escaped. */
function encodeGrpcMessage(details: string): string {
  if (/^[\x20-\x24\x26-\x7e]*$/.test(details)) return details;
  let out = '';
  for (const byte of Buffer.from(details, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
