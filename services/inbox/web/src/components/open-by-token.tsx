import { useState } from 'preact/hooks';
import { ApiError, callApi, endpointPath, type EndpointView } from '../api.js';
import type { RememberedEndpoint } from '../remembered.js';
import { endpointIdFromText } from '../routes.js';
import { ErrorText } from './error-text.js';

/** A pasted token without the quotes or spaces it may have been copied with from a JSON answer. */
const cleanToken = (text: string): string => text.trim().replace(/^"(.*)"$/, '$1');

/**
 * Opens an anonymous endpoint made elsewhere (`curl -X POST …/api/endpoints` answers its id and token): the
 * inbox checks the token, then this browser remembers it as it does the endpoints made here. Given
 * `endpointId` (the page's), only the token is asked for.
 */
export function OpenByToken(p: { endpointId?: string; onOpened: (e: RememberedEndpoint) => void }) {
  const [idText, setIdText] = useState('');
  const [tokenText, setTokenText] = useState('');
  const [error, setError] = useState('');

  const submit = async (): Promise<void> => {
    const id = p.endpointId ?? endpointIdFromText(idText);
    const token = cleanToken(tokenText);
    if (id === undefined) return setError('Paste the endpoint id, its receive URL or its inspector address.');
    try {
      const e = await callApi<EndpointView>('GET', endpointPath(id), { token });
      setError('');
      p.onOpened({ id: e.id, token, name: e.name, receiveUrl: e.receiveUrl });
    } catch (err: unknown) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'The inbox refused this token for this endpoint: paste the token from the same answer as its id.'
          : `Could not open the endpoint: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };

  return (
    <form
      class="open-by-token"
      aria-label="Open an endpoint by its token"
      onSubmit={(ev) => {
        ev.preventDefault();
        void submit();
      }}
    >
      {p.endpointId === undefined && (
        <label>
          Endpoint id or receive URL
          <input
            required
            maxLength={500}
            autoComplete="off"
            value={idText}
            onInput={(ev) => setIdText(ev.currentTarget.value)}
          />
        </label>
      )}
      <label>
        Token
        <input
          required
          maxLength={500}
          autoComplete="off"
          spellcheck={false}
          value={tokenText}
          onInput={(ev) => setTokenText(ev.currentTarget.value)}
        />
      </label>
      <button type="submit" class="primary">
        Open
      </button>
      <ErrorText text={error} />
    </form>
  );
}
