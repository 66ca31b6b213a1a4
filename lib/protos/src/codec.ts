import { existsSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { PORTCULLIS_PROTO_DIR, SHIPPED_PROTO_DIRS } from './load.js';

/** Encodes and decodes one message type, e.g. the payload of a `google.protobuf.Any`. */
export interface MessageCodec<T extends object = Record<string, unknown>> {
  /** `type.googleapis.com/<full name>`. */
  typeUrl: string;
  encode(message: T): Uint8Array;
  /** Decodes with the loader's conventions: camelCase fields, enums by name, 64-bit integers as numbers. */
  decode(bytes: Uint8Array): T;
}

const roots = new Map<string, protobuf.Root>();

/** Loads `file` (and its imports, searched like the gRPC loader searches them) once per process. */
function loadRoot(file: string): protobuf.Root {
  let root = roots.get(file);
  if (!root) {
    root = new protobuf.Root();
    root.resolvePath = (_origin, target) =>
      [PORTCULLIS_PROTO_DIR, ...SHIPPED_PROTO_DIRS].map((d) => join(d, target)).find((p) => existsSync(p)) ?? target;
    root.loadSync(file, { keepCase: false });
    root.resolveAll();
    roots.set(file, root);
  }
  return root;
}

export function createMessageCodec<T extends object = Record<string, unknown>>(
  file: string,
  typeName: string,
): MessageCodec<T> {
  const type = loadRoot(file).lookupType(typeName);
  return {
    typeUrl: `type.googleapis.com/${typeName}`,
    // fromObject takes enum names as well as numbers; callers pass models they have already validated.
    encode: (message) => type.encode(type.fromObject(message)).finish(),
    decode: (bytes) => type.toObject(type.decode(bytes), { longs: Number, enums: String, defaults: false }) as T,
  };
}
