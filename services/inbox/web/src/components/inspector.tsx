import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import {
  ApiError,
  callApi,
  endpointPath,
  type CaptureDetail,
  type CaptureSummary,
  type EndpointView,
  type RequestPage,
} from '../api.js';
import {
  matchesCapture,
  parseCaptureFilter,
  type CaptureFilter,
} from '../../../src/contract/capture-filter.js';
import { fromBase64 } from '../bytes.js';
import { followEndpoint, type LiveState } from '../live.js';
import { EndpointHeader } from './endpoint-header.js';
import { FilterBar } from './filter-bar.js';
import { ForwardingHealth } from './forwarding-health.js';
import { RequestDetail } from './request-detail.js';
import { OpenByToken } from './open-by-token.js';
import { RequestList } from './request-list.js';
import type { RememberedEndpoint } from '../remembered.js';

const PAGE_SIZE = 100;
/** Filtered pages that may come back empty (the inbox stopped at its scan budget) before one is shown. */
const MAX_EMPTY_PAGES = 10;

/** What a full record has beyond a list row. */
const DETAIL_ONLY: ReadonlyArray<Exclude<keyof CaptureDetail, keyof CaptureSummary>> = [
  'endpointId',
  'path',
  'queryParams',
  'httpVersion',
  'headers',
  'bodySha256',
  'bodyBase64',
  'body',
  'raw',
  'forwarding',
];

/** A live full record as a list row: the filter needed its headers and body, the list does not. */
function toRow(d: CaptureDetail): CaptureSummary {
  const detailOnly = new Set<string>(DETAIL_ONLY);
  return Object.fromEntries(
    Object.entries(d).filter(([k]) => !detailOnly.has(k)),
  ) as unknown as CaptureSummary;
}

/** Whether a live capture (its full record) passes the filter, by the rules the inbox applies. */
function isShown(filter: CaptureFilter, d: CaptureDetail): boolean {
  return matchesCapture(filter, { ...d, rawHeaders: d.headers.flat(), body: fromBase64(d.bodyBase64) });
}

/**
 * Why the endpoint did not load, and whether its token would help. The inbox answers 401 to a missing or
 * wrong token and 404 to an account for another's endpoint, whether the id exists or not: the page cannot
 * tell an anonymous endpoint from an account's, so it says how each is opened.
 */
function loadError(e: unknown, p: { token: string | undefined; readOnly: boolean }) {
  const status = e instanceof ApiError ? e.status : 0;
  if (p.readOnly && status === 401) {
    return { text: 'This share link is not valid: it may have been revoked.', askToken: false };
  }
  if (status === 401) {
    const why =
      p.token === undefined
        ? 'This browser has no token for this endpoint.'
        : 'The inbox refused the token this browser has for this endpoint (deleted, or moved into an account?).';
    return {
      text: `${why} An endpoint made with POST /api/endpoints opens with the token that call answered: paste it here. An account's endpoint opens once you sign in to that account.`,
      askToken: true,
    };
  }
  if (status === 404) {
    return {
      text: 'Your account has no endpoint with this id. An endpoint made with POST /api/endpoints opens with the token that call answered: paste it here.',
      askToken: true,
    };
  }
  return {
    text: `Could not load the endpoint: ${e instanceof Error ? e.message : String(e)}`,
    askToken: false,
  };
}

/**
 * One endpoint: its header, the request list (history paged in, new captures live) and the detail pane.
 * `readOnly` (a share link) leaves out every control that changes something; the inbox refuses those
 * calls to a share token anyway.
 */
export function Inspector(p: {
  endpointId: string;
  token: string | undefined;
  readOnly: boolean;
  /** The filter in the page's address, a query string without `?`; empty shows everything. */
  filter: string;
  onFilter: (filter: string) => void;
  onRenamed: (e: EndpointView) => void;
  /** A token pasted for an endpoint this browser could not open: to remember, then open with. */
  onToken: (e: RememberedEndpoint) => void;
}) {
  const [endpoint, setEndpoint] = useState<EndpointView>();
  const [error, setError] = useState<{ text: string; askToken: boolean }>();
  const [items, setItems] = useState<CaptureSummary[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string>();
  // on a phone the list and the detail are two views: a tapped row opens the detail, Back returns
  const [view, setView] = useState<'list' | 'detail'>('list');
  const listScrollY = useRef(0);
  const [live, setLive] = useState<{ state: LiveState; detail?: string | undefined }>({
    state: 'connecting',
  });
  const loadingMore = useRef(false);
  const parsed = useMemo(
    () => parseCaptureFilter(new URLSearchParams(p.filter), { unknown: 'refuse' }),
    [p.filter],
  );
  // a filtered page may be empty yet not the last: the inbox scans a bounded number of captures per call
  const fetchPage = async (before: string | undefined): Promise<RequestPage> => {
    let cursor = before;
    for (let round = 1; ; round++) {
      const query = `limit=${PAGE_SIZE}${cursor === undefined ? '' : `&before=${encodeURIComponent(cursor)}`}`;
      const path = endpointPath(p.endpointId, `/requests?${query}${p.filter === '' ? '' : `&${p.filter}`}`);
      const page = await callApi<RequestPage>('GET', path, { token: p.token });
      if (page.requests.length > 0 || page.nextBefore === null || round === MAX_EMPTY_PAGES) return page;
      cursor = page.nextBefore;
    }
  };

  useEffect(() => {
    const abort = new AbortController();
    const { endpointId, token } = p;
    const filter = p.filter === '' ? undefined : parsed.filter;
    const start = async () => {
      const view = await callApi<EndpointView>('GET', endpointPath(endpointId), { token });
      // a filter that does not parse: its problems are shown in the bar, and no request
      if (p.filter !== '' && !filter) return setEndpoint(view);
      const [page, newest] = await Promise.all([
        fetchPage(undefined),
        // with a filter, the live stream starts after the newest capture, shown or not
        filter
          ? callApi<RequestPage>('GET', endpointPath(endpointId, '/requests?limit=1'), { token })
          : undefined,
      ]);
      if (abort.signal.aborted) return;
      setEndpoint(view);
      setItems(page.requests);
      setNextBefore(page.nextBefore);
      setSelectedId((s) => s ?? page.requests[0]?.id);
      // from the newest shown (or the start): the inbox replays anything captured in between
      await followEndpoint({
        endpointId,
        token,
        after: (newest ?? page).requests[0]?.id ?? '0-0',
        full: filter !== undefined,
        signal: abort.signal,
        onState: (state, detail) => setLive({ state, detail }),
        onRequest: (record) => {
          if (filter && !isShown(filter, record as CaptureDetail)) return;
          const summary = filter ? toRow(record as CaptureDetail) : record;
          // pending until its first attempt, as the list API shows it
          const row = (view.forward?.length ?? 0) > 0 ? { ...summary, lastForwarding: null } : summary;
          setItems((list) => (list.some((i) => i.id === row.id) ? list : [row, ...list]));
          setSelectedId((s) => s ?? summary.id);
        },
        onForwarding: ({ requestId, ...attempt }) =>
          setItems((list) => list.map((i) => (i.id === requestId ? { ...i, lastForwarding: attempt } : i))),
        onReconnected: () => {
          // outcomes recorded while disconnected: the newest page's, read again
          callApi<RequestPage>('GET', endpointPath(endpointId, `/requests?limit=${PAGE_SIZE}`), { token })
            .then((fresh) => {
              const outcomes = new Map(fresh.requests.map((r) => [r.id, r.lastForwarding]));
              setItems((list) =>
                list.map((i) => (outcomes.has(i.id) ? { ...i, lastForwarding: outcomes.get(i.id) } : i)),
              );
            })
            .catch(() => undefined); // the next event or reload shows them
        },
      });
    };
    start().catch((e: unknown) => {
      if (abort.signal.aborted) return;
      setError(loadError(e, p));
    });
    return () => abort.abort();
  }, [p.endpointId, p.token, p.filter]);
  // the detail opens at its top; Back returns to where the list was
  useEffect(() => scrollTo(0, view === 'list' ? listScrollY.current : 0), [view]);

  const loadMore = async () => {
    if (nextBefore === null || loadingMore.current) return;
    loadingMore.current = true;
    try {
      const page = await fetchPage(nextBefore);
      setItems((list) => [...list, ...page.requests.filter((r) => !list.some((i) => i.id === r.id))]);
      setNextBefore(page.nextBefore);
    } finally {
      loadingMore.current = false;
    }
  };

  if (error) {
    return (
      <main class="inspector load-error">
        <ErrorText text={error.text} />
        {error.askToken && <OpenByToken endpointId={p.endpointId} onOpened={p.onToken} />}
      </main>
    );
  }
  if (!endpoint) return <main class="inspector" aria-busy="true" />;
  const selected = items.find((i) => i.id === selectedId);
  // only a managed endpoint has forward targets: the others never forward
  const forwards = endpoint.kind === 'managed';
  return (
    <main class={`inspector view-${view}`}>
      <EndpointHeader
        endpoint={endpoint}
        token={p.token}
        readOnly={p.readOnly}
        live={live}
        count={items.length}
        onRenamed={(e) => {
          setEndpoint(e);
          p.onRenamed(e);
        }}
      />
      <FilterBar
        endpointId={p.endpointId}
        token={p.token}
        filter={p.filter}
        problems={parsed.problems}
        forwards={forwards}
        onApply={p.onFilter}
      />
      {forwards && !p.readOnly && <ForwardingHealth endpointId={endpoint.id} token={p.token} />}
      <div class="panes">
        <RequestList
          items={items}
          selectedId={selectedId}
          hasMore={nextBefore !== null}
          signed={endpoint.signature !== null}
          onSelect={setSelectedId}
          onOpen={(id) => {
            setSelectedId(id);
            if (view === 'list') listScrollY.current = scrollY;
            setView('detail');
          }}
          onNearEnd={() => void loadMore()}
        />
        <button type="button" class="back" onClick={() => setView('list')}>
          ← Requests
        </button>
        {selected ? (
          <RequestDetail
            key={selected.id}
            endpoint={endpoint}
            summary={selected}
            token={p.token}
            readOnly={p.readOnly}
            forwards={forwards}
          />
        ) : (
          <section class="detail empty" aria-label="Request detail">
            <p>No requests yet. Send one to the receive URL:</p>
            <pre class="hint">{`curl -X POST ${endpoint.receiveUrl} -H 'content-type: application/json' -d '{"hello":"world"}'`}</pre>
          </section>
        )}
      </div>
    </main>
  );
}
