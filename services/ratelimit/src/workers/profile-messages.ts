import type { RuntimeFigures } from '@portcullis/kit';

// What the primary and a worker say about `/debug/pprof/?worker=<id>` over the cluster's IPC channel, under a
// tag of their own: the view and statsd messages (messages.ts) never see them, nor these those.

const TAG = 'portcullis-ratelimit-profiles';

/**
 * A worker sends a heap snapshot's text in pieces of this many bytes (Node hands it over whole, tens of MB),
 * one for each `more` of the primary: `HEAP_CHUNKS_IN_FLIGHT` at first, then one per piece the client's
 * connection took, so a slow client holds back the worker and never piles the snapshot up in the primary.
 */
export const HEAP_CHUNK_BYTES = 256 * 1024;
export const HEAP_CHUNKS_IN_FLIGHT = 4;

export type ProfileRequest =
  | { tag: typeof TAG; kind: 'profile'; id: number; seconds: number }
  | { tag: typeof TAG; kind: 'heap' | 'runtime' | 'more' | 'stop'; id: number };

export type ProfileAnswer =
  | { tag: typeof TAG; kind: 'profile'; id: number; profile: object }
  | { tag: typeof TAG; kind: 'runtime'; id: number; figures: RuntimeFigures }
  | { tag: typeof TAG; kind: 'heap-start'; id: number; heapUsedBytes: number }
  | { tag: typeof TAG; kind: 'heap-chunk'; id: number; text: string }
  | { tag: typeof TAG; kind: 'heap-end'; id: number }
  | { tag: typeof TAG; kind: 'failed'; id: number; message: string };

export type Untagged<M> = M extends unknown ? Omit<M, 'tag'> : never;

export function profileMessage<M extends ProfileRequest | ProfileAnswer>(m: Untagged<M>): M {
  return { tag: TAG, ...m } as unknown as M;
}

export function isProfileRequest(m: unknown): m is ProfileRequest {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === TAG;
}

export function isProfileAnswer(m: unknown): m is ProfileAnswer {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === TAG;
}
