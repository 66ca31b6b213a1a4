/**
 * Shared types of the xDS package: the discovery messages as @grpc/proto-loader hands them over (with the
 * loader options of @portcullis/protos), and the public shapes of the server and client.
 */

/**
 * `google.protobuf.Any`. protobufjs defines the well-known types itself with snake_case field names, so
 * `type_url` keeps its underscore even though every other field is camelCase.
 */
export interface AnyMessage {
  type_url: string;
  value: Uint8Array;
}

/** `google.rpc.Status`, the `error_detail` of a NACK. */
export interface StatusMessage {
  code?: number;
  message?: string;
}

/** `google.protobuf.Struct` restricted to string values, which is all upstream ratelimit sends. */
export interface StringStructMessage {
  fields?: Record<string, { stringValue?: string }>;
}

/** The parts of `envoy.config.core.v3.Node` we read or send. */
export interface NodeMessage {
  id?: string;
  cluster?: string;
  metadata?: StringStructMessage | null;
  userAgentName?: string;
}

/** `envoy.service.discovery.v3.DiscoveryRequest`; absent fields are undefined (proto3 defaults). */
export interface DiscoveryRequestMessage {
  versionInfo?: string;
  node?: NodeMessage | null;
  resourceNames?: string[];
  typeUrl?: string;
  responseNonce?: string;
  errorDetail?: StatusMessage | null;
}

/** `envoy.service.discovery.v3.DiscoveryResponse`. */
export interface DiscoveryResponseMessage {
  versionInfo?: string;
  resources?: AnyMessage[];
  typeUrl?: string;
  nonce?: string;
}

/** One resource of a type, as the server stores it. */
export interface XdsResource {
  /** Unique within its type; what a named subscription asks for. */
  name: string;
  /** The encoded message bytes (the `value` of the `Any`). */
  value: Uint8Array;
}

/** One type on one stream, as `SotwServer.clients()` reports it. */
export interface ClientTypeState {
  typeUrl: string;
  /** `'*'` for a wildcard subscription, else the names asked for. */
  subscription: '*' | readonly string[];
  /** The version of the last response sent on this stream ('' before the first). */
  sentVersion: string;
  /** The last version the client ACKed, or reported in the first request of the stream ('' if none). */
  ackedVersion: string;
  /** The last NACK of this type on this stream; kept after later ACKs, so compare its version. */
  lastNack?: { version: string; nonce: string; message: string; code: number };
}

/** One open stream. */
export interface ClientState {
  /** Unique per server process. */
  streamId: number;
  nodeId: string;
  peer: string;
  types: ClientTypeState[];
}

interface StreamEvent {
  streamId: number;
  nodeId: string;
  peer: string;
}

export interface SotwServerEvents {
  connect: StreamEvent;
  disconnect: StreamEvent;
  ack: StreamEvent & { typeUrl: string; version: string; nonce: string };
  nack: StreamEvent & { typeUrl: string; version: string; nonce: string; message: string; code: number };
  /** A response written to the stream: how many resources, and its encoded size in bytes. */
  response: StreamEvent & {
    typeUrl: string;
    version: string;
    nonce: string;
    resources: number;
    bytes: number;
  };
}

/** What `SotwClientOptions.onResources` receives for each resource. */
export interface ReceivedResource {
  typeUrl: string;
  value: Uint8Array;
}
