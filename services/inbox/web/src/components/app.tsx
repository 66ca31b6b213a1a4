import { useCallback, useEffect, useState } from 'preact/hooks';
import { callApi, type AccountView, type CreatedEndpoint, type EndpointView } from '../api.js';
import { loadRemembered, remember, type RememberedEndpoint } from '../remembered.js';
import { endpointIdFromPath, filterFromSearch, inspectPath, inspectUrl } from '../routes.js';
import { AccountPanel } from './account-panel.js';
import { Inspector } from './inspector.js';
import { Switcher } from './switcher.js';

/**
 * The page: who is signed in, the endpoints this browser and the account know, and the inspector of the
 * endpoint the address names (`/inspect/<id>`).
 */
export function App() {
  const [account, setAccount] = useState<AccountView | null | undefined>(undefined);
  const [remembered, setRemembered] = useState<RememberedEndpoint[]>(loadRemembered);
  const [owned, setOwned] = useState<EndpointView[]>([]);
  const [currentId, setCurrentId] = useState(() => endpointIdFromPath(location.pathname));
  const [filter, setFilter] = useState(() => filterFromSearch(location.search));
  const [notice, setNotice] = useState('');

  useEffect(() => {
    callApi<{ account: AccountView | null }>('GET', '/api/session')
      .then((r) => setAccount(r.account))
      .catch(() => setAccount(null));
    const onPop = () => {
      setCurrentId(endpointIdFromPath(location.pathname));
      setFilter(filterFromSearch(location.search));
    };
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  const refreshOwned = useCallback(async () => {
    if (!account) return setOwned([]);
    const r = await callApi<{ endpoints: EndpointView[] }>('GET', '/api/endpoints');
    setOwned(r.endpoints);
  }, [account]);
  useEffect(() => {
    refreshOwned().catch((e: unknown) => setNotice(String(e)));
  }, [refreshOwned]);

  const open = (id: string): void => {
    history.pushState(null, '', inspectPath(id));
    setCurrentId(id);
    setFilter('');
  };
  // each filter is an address of its own: shared, kept by a reload, and Back returns to the previous one
  const applyFilter = (id: string, next: string): void => {
    history.pushState(null, '', inspectUrl(id, next));
    setFilter(next);
  };
  const create = async (): Promise<void> => {
    try {
      const c = await callApi<CreatedEndpoint>('POST', '/api/endpoints', { body: {} });
      if (c.token !== undefined) {
        setRemembered(remember({ id: c.id, token: c.token, name: c.name, receiveUrl: c.receiveUrl }));
      } else {
        await refreshOwned();
      }
      open(c.id);
    } catch (e: unknown) {
      setNotice(`Could not create an endpoint: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const onRenamed = (e: EndpointView): void => {
    const known = remembered.find((r) => r.id === e.id);
    if (known) setRemembered(remember({ ...known, name: e.name }));
    else setOwned(owned.map((o) => (o.id === e.id ? e : o)));
  };
  const token = remembered.find((r) => r.id === currentId)?.token;

  return (
    <div class="page">
      <header class="topbar">
        <a class="brand" href="/">
          Inbox
        </a>
        <Switcher
          remembered={remembered}
          owned={owned}
          currentId={currentId}
          onOpen={open}
          onCreate={create}
        />
        <AccountPanel
          account={account}
          remembered={remembered}
          onAccount={setAccount}
          onRemembered={setRemembered}
          onClaimed={refreshOwned}
        />
      </header>
      <p class="notice" role="status" aria-live="polite">
        {notice}
      </p>
      {currentId === undefined ? (
        <main class="landing">
          <h1>Webhook inbox</h1>
          <p>
            Make a receive URL, point a webhook at it, and watch every request arrive here, byte for byte.
          </p>
          <button type="button" class="primary" onClick={() => void create()}>
            New endpoint
          </button>
        </main>
      ) : (
        <Inspector
          key={`${currentId}?${filter}`}
          endpointId={currentId}
          token={token}
          filter={filter}
          onFilter={(next) => applyFilter(currentId, next)}
          onRenamed={onRenamed}
        />
      )}
    </div>
  );
}
