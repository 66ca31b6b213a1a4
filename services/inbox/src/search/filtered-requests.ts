import { InvalidArgumentError } from '@portcullis/kit';
import { toCaptureSummary, type CaptureSummary } from '../contract/capture-json.js';
import type { EndpointRecord, InboxStore } from '../store/types.js';
import { parseCaptureFilter, type CaptureFilter } from '../contract/capture-filter.js';
import { searchCaptures } from './capture-search.js';

export type QueryParams = Record<string, string | string[] | undefined>;

/** fastify's query object as `[name, value]` pairs (a repeated parameter is an array). */
export function toQueryPairs(query: QueryParams): Array<[string, string]> {
  return Object.entries(query).flatMap(([name, v]) =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((value): [string, string] => [name, value]),
  );
}

/** The filter in an API call's query parameters; `400 INVALID_ARGUMENT` listing every problem. */
export function readCaptureFilter(query: QueryParams): CaptureFilter {
  const { filter, problems } = parseCaptureFilter(toQueryPairs(query), { unknown: 'ignore' });
  if (!filter) throw new InvalidArgumentError(problems.join('; '));
  return filter;
}

/** `GET …/requests` with a filter: a page of matches, bounded by `maxScan` captures read. */
export async function listFilteredRequests(
  store: InboxStore,
  endpoint: EndpointRecord,
  o: { filter: CaptureFilter; limit: number; before: string | undefined; maxScan: number },
): Promise<{ requests: CaptureSummary[]; nextBefore: string | null; scanned: number }> {
  const page = await searchCaptures(store, endpoint.id, o);
  const summaries = page.matches.map(toCaptureSummary);
  const histories =
    endpoint.forward.length === 0
      ? undefined
      : await store.listForwardHistories(
          endpoint.id,
          page.matches.map((c) => c.id),
        );
  return {
    // as in the unfiltered list: the latest attempt, when the endpoint forwards
    requests: histories
      ? summaries.map((s, i) => ({ ...s, lastForwarding: histories[i]?.at(-1) ?? null }))
      : summaries,
    nextBefore: page.nextBefore,
    scanned: page.scanned,
  };
}
