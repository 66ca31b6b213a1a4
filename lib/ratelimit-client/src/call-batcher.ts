import { batchPerTurn } from '@portcullis/kit';
import type { GrpcRateLimitRequest, GrpcRateLimitResponse } from './grpc-codec.js';

/** Requests merged into one call at most; more in one turn go out in several calls. */
export const MAX_BATCHED_REQUESTS = 256;

export type Call = (request: GrpcRateLimitRequest) => Promise<GrpcRateLimitResponse>;

/** One request's answer, and how many requests shared its `ShouldRateLimit` call (1 when sent alone). */
export interface BatchedAnswer {
  response: GrpcRateLimitResponse;
  batchSize: number;
}

interface Waiting {
  request: GrpcRateLimitRequest;
  resolve: (answer: BatchedAnswer) => void;
  reject: (err: unknown) => void;
}

/**
 * Sends the requests made in one event-loop turn for the same domain (and request-level `hits_addend`) as
 * one `ShouldRateLimit` call whose descriptors are theirs one after the other, and hands each its own
 * slice of the statuses. The protocol allows it: a descriptor's status depends on its own counters only,
 * and a key repeated in one request is counted once per descriptor, so the answers are those the requests
 * would have had one by one, in the order they were made. The overall code of each is OVER_LIMIT when one
 * of its statuses is.
 *
 * Left alone (sent as they are): a request with no descriptors (the service refuses it, and would refuse
 * the batch) or with a per-descriptor `hits_addend` (one too large would fail the whole batch). Once the
 * service answers with `response_headers_to_add` (upstream's `LIMIT_RESPONSE_HEADERS_ENABLED`), which
 * describe a whole request and cannot be split, that batch is asked again one request at a time and every
 * later request goes alone.
 */
export function createCallBatcher(call: Call): (request: GrpcRateLimitRequest) => Promise<BatchedAnswer> {
  let headersFromService = false;

  const alone = async (request: GrpcRateLimitRequest): Promise<BatchedAnswer> => ({
    response: await call(request),
    batchSize: 1,
  });

  const send = async (group: Waiting[]): Promise<void> => {
    const first = group[0];
    if (group.length === 1 && first) {
      alone(first.request).then(first.resolve, first.reject);
      return;
    }
    let response: GrpcRateLimitResponse;
    try {
      response = await call(merge(group.map((w) => w.request)));
    } catch (err: unknown) {
      for (const w of group) w.reject(err);
      return;
    }
    if ((response.responseHeadersToAdd ?? []).length > 0) {
      headersFromService = true;
      for (const w of group) alone(w.request).then(w.resolve, w.reject);
      return;
    }
    const answers = split(
      response,
      group.map((w) => w.request),
    );
    group.forEach((w, i) => w.resolve({ response: answers[i] ?? {}, batchSize: group.length }));
  };

  const queue = batchPerTurn<Waiting>((turn) => {
    for (const group of groupByCall(turn)) void send(group);
  });

  return (request) => {
    if (headersFromService || !isBatchable(request)) return alone(request);
    return new Promise((resolve, reject) => queue({ request, resolve, reject }));
  };
}

function isBatchable(r: GrpcRateLimitRequest): boolean {
  return r.descriptors.length > 0 && r.descriptors.every((d) => d.hitsAddend === undefined);
}

/** The turn's requests by domain and `hits_addend`, in the order made, at most `MAX_BATCHED_REQUESTS` each. */
function groupByCall(turn: readonly Waiting[]): Waiting[][] {
  const open = new Map<string, Waiting[]>();
  const groups: Waiting[][] = [];
  for (const w of turn) {
    const key = `${w.request.hitsAddend ?? 0}\u0000${w.request.domain}`;
    let group = open.get(key);
    if (!group || group.length === MAX_BATCHED_REQUESTS) {
      group = [];
      open.set(key, group);
      groups.push(group);
    }
    group.push(w);
  }
  return groups;
}

function merge(requests: readonly GrpcRateLimitRequest[]): GrpcRateLimitRequest {
  const [first] = requests;
  if (!first) throw new Error('merge: no requests');
  return { ...first, descriptors: requests.flatMap((r) => r.descriptors) };
}

/**
 * Each request's part of `response`. An answer the service could not decide (overall UNKNOWN), or whose
 * statuses do not match the descriptors sent one for one, is UNKNOWN for every request.
 */
function split(
  response: GrpcRateLimitResponse,
  requests: readonly GrpcRateLimitRequest[],
): GrpcRateLimitResponse[] {
  const statuses = response.statuses ?? [];
  const sent = requests.reduce((n, r) => n + r.descriptors.length, 0);
  const undecided = response.overallCode !== 'OK' && response.overallCode !== 'OVER_LIMIT';
  if (undecided || statuses.length !== sent) return requests.map(() => ({ overallCode: 'UNKNOWN' }));
  let offset = 0;
  return requests.map((r) => {
    const own = statuses.slice(offset, (offset += r.descriptors.length));
    return { overallCode: own.some((s) => s.code === 'OVER_LIMIT') ? 'OVER_LIMIT' : 'OK', statuses: own };
  });
}
