import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import {
  ApiError,
  callApi,
  endpointPath,
  type CaptureSummary,
  type EndpointView,
  type RequestPage,
} from '../api.js';
import { followEndpoint, type LiveState } from '../live.js';
import { EndpointHeader } from './endpoint-header.js';
import { ForwardingHealth } from './forwarding-health.js';
import { RequestDetail } from './request-detail.js';
import { RequestList } from './request-list.js';

const PAGE_SIZE = 100;

/** One endpoint: its header, the request list (history paged in, new captures live) and the detail pane. */
export function Inspector(p: {
  endpointId: string;
  token: string | undefined;
  onRenamed: (e: EndpointView) => void;
}) {
  const [endpoint, setEndpoint] = useState<EndpointView>();
  const [error, setError] = useState('');
  const [items, setItems] = useState<CaptureSummary[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const [selectedId, setSelectedId] = useState<string>();
  const [live, setLive] = useState<{ state: LiveState; detail?: string | undefined }>({
    state: 'connecting',
  });
  const loadingMore = useRef(false);

  useEffect(() => {
    const abort = new AbortController();
    const { endpointId, token } = p;
    const start = async () => {
      const [view, page] = await Promise.all([
        callApi<EndpointView>('GET', endpointPath(endpointId), { token }),
        callApi<RequestPage>('GET', endpointPath(endpointId, `/requests?limit=${PAGE_SIZE}`), { token }),
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
        after: page.requests[0]?.id ?? '0-0',
        signal: abort.signal,
        onState: (state, detail) => setLive({ state, detail }),
        onRequest: (summary) => {
          setItems((list) => (list.some((i) => i.id === summary.id) ? list : [summary, ...list]));
          setSelectedId((s) => s ?? summary.id);
        },
      });
    };
    start().catch((e: unknown) => {
      if (abort.signal.aborted) return;
      setError(
        e instanceof ApiError && (e.status === 401 || e.status === 404)
          ? 'This endpoint does not exist, or this browser may not open it. Sign in with the account that owns it.'
          : `Could not load the endpoint: ${e instanceof Error ? e.message : String(e)}`,
      );
    });
    return () => abort.abort();
  }, [p.endpointId, p.token]);

  const loadMore = async () => {
    if (nextBefore === null || loadingMore.current) return;
    loadingMore.current = true;
    try {
      const page = await callApi<RequestPage>(
        'GET',
        endpointPath(p.endpointId, `/requests?limit=${PAGE_SIZE}&before=${encodeURIComponent(nextBefore)}`),
        { token: p.token },
      );
      setItems((list) => [...list, ...page.requests.filter((r) => !list.some((i) => i.id === r.id))]);
      setNextBefore(page.nextBefore);
    } finally {
      loadingMore.current = false;
    }
  };

  if (error !== '') {
    return (
      <main class="inspector">
        <ErrorText text={error} />
      </main>
    );
  }
  if (!endpoint) return <main class="inspector" aria-busy="true" />;
  const selected = items.find((i) => i.id === selectedId);
  return (
    <main class="inspector">
      <EndpointHeader
        endpoint={endpoint}
        token={p.token}
        live={live}
        count={items.length}
        onRenamed={(e) => {
          setEndpoint(e);
          p.onRenamed(e);
        }}
      />
      {endpoint.kind === 'managed' && <ForwardingHealth endpointId={endpoint.id} token={p.token} />}
      <div class="panes">
        <RequestList
          items={items}
          selectedId={selectedId}
          hasMore={nextBefore !== null}
          onSelect={setSelectedId}
          onNearEnd={() => void loadMore()}
        />
        {selected ? (
          <RequestDetail key={selected.id} endpoint={endpoint} summary={selected} token={p.token} />
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
