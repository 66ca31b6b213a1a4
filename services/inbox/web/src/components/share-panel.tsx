import { useEffect, useState } from 'preact/hooks';
import { callApi, endpointPath } from '../api.js';
import type { CreatedShare, ShareView } from '../sharing-api.js';
import { ErrorText } from './error-text.js';

/**
 * The endpoint's read-only share links, for whoever manages it: make one (its link shown this once, as the
 * inbox keeps only its token's hash), see when each was made, revoke one.
 */
export function SharePanel(p: { endpointId: string; token: string | undefined }) {
  const [shares, setShares] = useState<ShareView[]>([]);
  const [created, setCreated] = useState<CreatedShare>();
  const [error, setError] = useState('');
  const path = endpointPath(p.endpointId, '/shares');
  const fail = (e: unknown): void => setError(e instanceof Error ? e.message : String(e));
  const refresh = async (): Promise<void> => {
    setShares((await callApi<{ shares: ShareView[] }>('GET', path, { token: p.token })).shares);
  };

  useEffect(() => {
    refresh().catch(fail);
  }, [path, p.token]);

  const create = async (): Promise<void> => {
    try {
      setCreated(await callApi<CreatedShare>('POST', path, { token: p.token }));
      setError('');
      await refresh();
    } catch (e: unknown) {
      fail(e);
    }
  };
  const revoke = async (id: string): Promise<void> => {
    try {
      await callApi('DELETE', endpointPath(p.endpointId, `/shares/${encodeURIComponent(id)}`), {
        token: p.token,
      });
      if (created?.id === id) setCreated(undefined);
      await refresh();
    } catch (e: unknown) {
      fail(e);
    }
  };

  return (
    <section class="shares" aria-label="Share links">
      <div class="row">
        <button type="button" onClick={() => void create()}>
          Create read-only link
        </button>
        <span class="meta">Whoever has a link sees the captures, live; they cannot change anything.</span>
      </div>
      <ErrorText text={error} />
      {created && (
        <div class="receive">
          <label for="share-url">New link (shown once)</label>
          <input id="share-url" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} />
        </div>
      )}
      {shares.length > 0 && (
        <ul class="share-list">
          {shares.map((s) => (
            <li key={s.id}>
              <span class="meta">
                Link {s.id.slice(0, 6)}… made {new Date(s.createdAt).toLocaleString()}
              </span>
              <button
                type="button"
                class="link"
                aria-label={`Revoke link ${s.id.slice(0, 6)}`}
                onClick={() => void revoke(s.id)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
