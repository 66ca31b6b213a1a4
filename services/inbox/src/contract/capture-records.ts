import type { SignaturePreset, SignatureProvider } from '@portcullis/config';

// The records the inbox keeps and shows: a capture as received and its id, a capture's signature check and
// forwarding history. The store (store/types.ts), the API's JSON (capture-json.ts), the forwarding worker,
// the CLI and the inspector all speak them.

/** A signature preset as stored: the secret sealed by the inbox's secrets key (signatures/secret-box.ts). */
export interface StoredSignature {
  preset: SignaturePreset;
  sealedSecret: string;
}

/** Why a signature did not verify. */
export type SignatureFailure = 'missing_header' | 'bad_format' | 'mismatch' | 'timestamp_outside_tolerance';

/** The outcome of checking a capture's signature when it was taken; a capture without one was not checked. */
export type SignatureCheck =
  | { status: 'verified'; provider: SignatureProvider }
  | { status: 'failed'; provider: SignatureProvider; reason: SignatureFailure; message: string };

/** One captured request as received; nothing in it is normalised or decoded. */
export interface CaptureInput {
  /** Milliseconds since the epoch, by the inbox's clock. */
  receivedAt: number;
  method: string;
  /** The raw request-target: path and query exactly as sent. */
  url: string;
  /** What follows `/api/hook/<id>` in the raw path: `''` or `/…`. */
  nestedPath: string;
  /** `1.1`, `1.0`. */
  httpVersion: string;
  /** Flat `[name, value, name, value, …]`: original order, case and duplicates. */
  rawHeaders: readonly string[];
  remoteAddress: string;
  /** The exact body bytes (possibly compressed, possibly not UTF-8). */
  body: Buffer;
  /** Hex SHA-256 of `body`. */
  bodySha256: string;
  /** Checked over `body` when it was received; absent when the endpoint had no signature preset. */
  signature?: SignatureCheck;
}

export interface Capture extends CaptureInput {
  /** The stream entry id, `<ms>-<seq>`: request id, SSE event id and paging cursor at once. */
  id: string;
}

/** One attempt to forward a capture to one target: what `GET …/requests/:requestId` shows as `forwarding`. */
export interface ForwardAttempt {
  /** The target's URL as configured. */
  target: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The target's HTTP status, when it answered. */
  status?: number;
  /** Why there is no status (connection failed, timed out, refused by the egress policy). */
  error?: string;
  /** ISO 8601. */
  at: string;
  /** ISO 8601, when another attempt is due; absent after the last one. */
  nextAttemptAt?: string;
  /**
   * `retrying`: another attempt is due; `dead`: given up, the capture is in the dead letters; `redriven`: a
   * dead letter sent back to the queue (attempt 0: the count starts again).
   */
  outcome: 'delivered' | 'retrying' | 'dead' | 'redriven';
}

/** An attempt as recorded, with the capture it is for: the data of the live stream's `forwarding` event. */
export interface ForwardingEvent extends ForwardAttempt {
  requestId: string;
}
