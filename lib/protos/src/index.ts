export {
  LOADER_OPTIONS,
  PORTCULLIS_PROTO_DIR,
  PROTO_FILES,
  SHIPPED_PROTO_DIRS,
  loadGrpcObject,
  loadProtoDefinition,
  type LoadOptions,
} from './load.js';
export { createMessageCodec, type MessageCodec } from './codec.js';
export { fromStruct, toStruct, type StructValue } from './struct.js';
