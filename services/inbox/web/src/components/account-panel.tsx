import { useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import { ApiError, callApi, endpointPath, type AccountView } from '../api.js';
import { forget, type RememberedEndpoint } from '../remembered.js';

/**
 * Signed in: the user name and a sign-out button. Otherwise a sign-in / sign-up form that can move this
 * browser's anonymous endpoints into the account (their tokens stop working; the account reads them).
 */
export function AccountPanel(p: {
  account: AccountView | null | undefined;
  remembered: RememberedEndpoint[];
  onAccount: (a: AccountView | null) => void;
  onRemembered: (r: RememberedEndpoint[]) => void;
  onClaimed: () => Promise<void>;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [claim, setClaim] = useState(true);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  if (p.account === undefined) return <div class="account" />;
  if (p.account) {
    const signOut = async () => {
      await callApi('DELETE', '/api/session');
      p.onAccount(null);
    };
    return (
      <div class="account">
        <span>
          Signed in as <strong>{p.account.username}</strong>
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    );
  }

  const submit = async (path: '/api/session' | '/api/accounts') => {
    setBusy(true);
    setError('');
    try {
      const r = await callApi<{ account: AccountView }>('POST', path, { body: { username, password } });
      let remembered = p.remembered;
      if (claim) {
        for (const e of p.remembered) {
          try {
            await callApi('POST', endpointPath(e.id, '/claim'), { token: e.token });
            remembered = forget(e.id);
          } catch (err: unknown) {
            // gone or already claimed elsewhere: nothing to move; forget it only when it no longer exists
            if (err instanceof ApiError && err.status === 401) remembered = forget(e.id);
          }
        }
        p.onRemembered(remembered);
      }
      setPassword('');
      p.onAccount(r.account);
      await p.onClaimed();
    } catch (err: unknown) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="account">
      <summary>Sign in</summary>
      <form
        class="account-form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit('/api/session');
        }}
      >
        <label>
          User name
          <input
            name="username"
            autocomplete="username"
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            minLength={8}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {p.remembered.length > 0 && (
          <label class="check">
            <input type="checkbox" checked={claim} onChange={(e) => setClaim(e.currentTarget.checked)} />
            Move this browser's {p.remembered.length} endpoint{p.remembered.length === 1 ? '' : 's'} into the
            account
          </label>
        )}
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={(e) => {
              if (e.currentTarget.form?.reportValidity()) void submit('/api/accounts');
            }}
          >
            Create account
          </button>
        </div>
        <ErrorText text={error} />
      </form>
    </details>
  );
}
