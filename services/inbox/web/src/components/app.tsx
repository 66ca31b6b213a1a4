import { useCallback, useEffect, useState } from 'preact/hooks';
import { callApi, type AccountView, type CreatedEndpoint, type EndpointView } from '../api.js';
import { loadAdminToken } from '../admin-token.js';
import { loadRemembered, remember, type RememberedEndpoint } from '../remembered.js';
import {
  ADMIN_PATH,
  endpointIdFromPath,
  filterFromSearch,
  inspectPath,
  inspectUrl,
  shareTokenFromHash,
} from '../routes.js';
import { AccountPanel } from './account-panel.js';
import { AdminView } from './admin-view.js';
import { Inspector } from './inspector.js';
import { OpenByToken } from './open-by-token.js';
import { Switcher } from './switcher.js';

/**
 * The page: who is signed in, the endpoints this browser and the account know, and the inspector of the
 * endpoint the address names (`/inspect/<id>`; read-only with a share link's `#share=<token>`), or the
 * admin view (`/admin`).
 */
export function App() {
  const [account, setAccount] = useState<AccountView | null | undefined>(undefined);
  const [remembered, setRemembered] = useState<RememberedEndpoint[]>(loadRemembered);
  const [owned, setOwned] = useState<EndpointView[]>([]);
  const [currentId, setCurrentId] = useState(() => endpointIdFromPath(location.pathname));
  const [isAdmin, setIsAdmin] = useState(() => location.pathname === ADMIN_PATH);
  const [shareToken, setShareToken] = useState(() => shareTokenFromHash(location.hash));
  const [filter, setFilter] = useState(() => filterFromSearch(location.search));
  const [notice, setNotice] = useState('');

  useEffect(() => {
    callApi<{ account: AccountView | null }>('GET', '/api/session')
      .then((r) => setAccount(r.account))
      .catch(() => setAccount(null));
    const onPop = () => {
      setCurrentId(endpointIdFromPath(location.pathname));
      setIsAdmin(location.pathname === ADMIN_PATH);
      setShareToken(shareTokenFromHash(location.hash));
      setFilter(filterFromSearch(location.search));
    };
    addEventListener('popstate', onPop);
    addEventListener('hashchange', onPop);
    return () => {
      removeEventListener('popstate', onPop);
      removeEventListener('hashchange', onPop);
    };
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
    setIsAdmin(false);
    setShareToken(undefined);
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
  // an endpoint made elsewhere, opened by its token: remembered as one made here
  const adopt = (e: RememberedEndpoint): void => {
    setRemembered(remember(e));
    if (e.id !== currentId) open(e.id);
  };
  const onRenamed = (e: EndpointView): void => {
    const known = remembered.find((r) => r.id === e.id);
    if (known) setRemembered(remember({ ...known, name: e.name }));
    else setOwned(owned.map((o) => (o.id === e.id ? e : o)));
  };
  // a share link's token wins: the address names it; the admin token (this tab's) opens the rest
  const token = shareToken ?? remembered.find((r) => r.id === currentId)?.token ?? loadAdminToken();

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
      {isAdmin ? (
        <AdminView />
      ) : currentId === undefined ? (
        <main class="landing">
          <h1>Webhook inbox</h1>
          <p>
            Make a receive URL, point a webhook at it, and watch every request arrive here, byte for byte.
          </p>
          <button type="button" class="primary" onClick={() => void create()}>
            New endpoint
          </button>
          <h2>Open an endpoint made elsewhere</h2>
          <p>
            <code>curl -X POST …/api/endpoints</code> answers an id and a token: paste both to open it here.
            This browser then remembers it.
          </p>
          <OpenByToken onOpened={adopt} />
        </main>
      ) : (
        <Inspector
          // a new token (pasted, or a share link pasted into this tab) starts afresh, past any error
          key={`${currentId}?${filter}#${token ?? ''}`}
          endpointId={currentId}
          token={token}
          readOnly={shareToken !== undefined}
          filter={filter}
          onFilter={(next) => applyFilter(currentId, next)}
          onRenamed={onRenamed}
          onToken={adopt}
        />
      )}
    </div>
  );
}
