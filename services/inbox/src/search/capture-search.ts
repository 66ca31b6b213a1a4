import { compareStreamIds } from '../contract/stream-id.js';
import type { Capture, ForwardAttempt } from '../contract/capture-records.js';
import type { InboxStore } from '../store/types.js';
import { matchesCapture, type CaptureFilter } from '../contract/capture-filter.js';

/** Captures read from the store at once: one XREVRANGE … COUNT (and one pipelined history read). */
export const SCAN_CHUNK = 100;

export interface SearchPage {
  /** Newest first. */
  matches: Capture[];
  /** Where the next page starts scanning (`before`); null once the oldest capture was scanned. */
  nextBefore: string | null;
  /** Captures read to make this page. */
  scanned: number;
}

/**
 * One page of the captures that match `filter`, newest first, reading at most `maxScan` captures: Redis
 * streams have no secondary index, so a filter is a scan, and its cost per call is bounded here. A page may
 * come back short, or empty, with a `nextBefore` that continues the scan. The time range bounds the scan
 * itself (the request id is the time), so only `from`..`to` is read. The forwarding history is read only for
 * scanned captures, only when the filter needs it, one round trip per chunk.
 */
export async function searchCaptures(
  store: InboxStore,
  endpointId: string,
  o: { filter: CaptureFilter; limit: number; before: string | undefined; maxScan: number },
): Promise<SearchPage> {
  const { filter } = o;
  const since = filter.fromMs === undefined ? undefined : `${filter.fromMs}-0`;
  // `to` is inclusive of its millisecond: strictly before the next one
  const toBefore = filter.toMs === undefined ? undefined : `${filter.toMs + 1}-0`;
  let cursor = earlier(o.before, toBefore);
  const matches: Capture[] = [];
  let scanned = 0;
  for (;;) {
    const want = Math.min(SCAN_CHUNK, o.maxScan - scanned);
    if (want <= 0) return { matches, nextBefore: cursor ?? null, scanned };
    const chunk = await store.listCaptures(endpointId, {
      limit: want,
      ...(cursor === undefined ? {} : { before: cursor }),
      ...(since === undefined ? {} : { since }),
    });
    const histories: ForwardAttempt[][] =
      filter.forwarding === undefined
        ? []
        : await store.listForwardHistories(
            endpointId,
            chunk.map((c) => c.id),
          );
    for (const [i, c] of chunk.entries()) {
      scanned += 1;
      cursor = c.id;
      const q = c.url.indexOf('?');
      const facts = { ...c, query: q === -1 ? '' : c.url.slice(q + 1) };
      if (!matchesCapture(filter, facts, histories[i])) continue;
      matches.push(c);
      if (matches.length === o.limit) {
        const more = i < chunk.length - 1 || chunk.length === want;
        return { matches, nextBefore: more ? c.id : null, scanned };
      }
    }
    if (chunk.length < want) return { matches, nextBefore: null, scanned };
  }
}

function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return compareStreamIds(a, b) <= 0 ? a : b;
}
