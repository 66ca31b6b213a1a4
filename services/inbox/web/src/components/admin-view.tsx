import { useEffect, useState } from 'preact/hooks';
import { ApiError, callApi } from '../api.js';
import { forgetAdminToken, loadAdminToken, saveAdminToken } from '../admin-token.js';
import { inspectPath } from '../routes.js';
import type { ManagedEndpointView } from '../sharing-api.js';
import { ErrorText } from './error-text.js';

type Status = 'checking' | 'disabled' | 'locked' | 'open';

/**
 * `/admin`: the managed endpoints (InboxEndpoint resources) for whoever holds the admin token, pasted here
 * and kept in this tab's sessionStorage. Each opens in the inspector, which reads it with that token.
 */
export function AdminView() {
  const [token, setToken] = useState(loadAdminToken);
  const [typed, setTyped] = useState('');
  const [status, setStatus] = useState<Status>('checking');
  const [rows, setRows] = useState<ManagedEndpointView[]>([]);
  const [error, setError] = useState('');

  useEffect(() => {
    // asked even without a token: the answer says whether the admin view is on at all
    callApi<{ endpoints: ManagedEndpointView[] }>('GET', '/api/admin/endpoints', { token })
      .then((r) => {
        setRows(r.endpoints);
        setStatus('open');
        setError('');
      })
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.code === 'ADMIN_DISABLED') return setStatus('disabled');
        setStatus('locked');
        if (e instanceof ApiError && e.status === 401) {
          if (token !== undefined) setError('Wrong admin token.');
          forgetAdminToken();
          return;
        }
        setError(`Could not list the endpoints: ${e instanceof Error ? e.message : String(e)}`);
      });
  }, [token]);

  const lock = (): void => {
    forgetAdminToken();
    setRows([]);
    setToken(undefined);
  };

  return (
    <main class="admin">
      <h1>Managed endpoints</h1>
      {status === 'disabled' && (
        <p role="status">The admin view is disabled: this inbox has no INBOX_ADMIN_TOKEN.</p>
      )}
      {status === 'locked' && (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            saveAdminToken(typed);
            setTyped('');
            setToken(typed);
          }}
        >
          <label for="admin-token">Admin token</label>
          <input
            id="admin-token"
            type="password"
            required
            autoComplete="off"
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
          <button type="submit" class="primary">
            Open
          </button>
          <span class="meta">Kept in this tab only (sessionStorage), never in a cookie.</span>
        </form>
      )}
      <ErrorText text={error} />
      {status === 'open' && (
        <>
          <div class="row">
            <span class="count">{rows.length} managed endpoints</span>
            <button type="button" onClick={lock}>
              Forget token
            </button>
          </div>
          <table class="pairs admin-endpoints">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Resource</th>
                <th scope="col">Targets</th>
                <th scope="col">Captures</th>
                <th scope="col">Last capture</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td>
                    <a href={inspectPath(r.id)}>{r.name === '' ? r.id : r.name}</a>
                  </td>
                  <td>{r.resource}</td>
                  <td>
                    {r.forward.length === 0
                      ? 'none'
                      : r.forward.map((t) => `${t.url}${t.enabled ? '' : ' (off)'}`).join(', ')}
                  </td>
                  <td>{r.requestCount}</td>
                  <td>{r.lastCaptureAt === null ? 'never' : new Date(r.lastCaptureAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
