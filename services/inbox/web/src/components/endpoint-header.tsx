import { useState } from 'preact/hooks';
import { EndpointSettings } from './endpoint-settings.js';
import { ErrorText } from './error-text.js';
import { callApi, endpointPath, type EndpointView } from '../api.js';
import type { LiveState } from '../live.js';
import { SharePanel } from './share-panel.js';
import { SignatureForm } from './signature-form.js';

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Stopped',
};

/**
 * The endpoint's name (renamable in place), kind, receive URL and the state of the live stream; its share
 * links. Opened through a share link (`readOnly`), nothing that changes the endpoint is shown.
 */
export function EndpointHeader(p: {
  endpoint: EndpointView;
  token: string | undefined;
  readOnly: boolean;
  live: { state: LiveState; detail?: string | undefined };
  count: number;
  onRenamed: (e: EndpointView) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(p.endpoint.name);
  const [error, setError] = useState('');
  const [copied, setCopied] = useState(false);
  const [sharing, setSharing] = useState(false);
  const e = p.endpoint;

  const save = async () => {
    try {
      const renamed = await callApi<EndpointView>('PATCH', endpointPath(e.id), {
        token: p.token,
        body: { name },
      });
      setEditing(false);
      setError('');
      p.onRenamed(renamed);
    } catch (err: unknown) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(e.receiveUrl);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false); // no clipboard (plain http): the URL stays selectable in its field
    }
  };

  return (
    <section class="endpoint" aria-label="Endpoint">
      <div class="title-row">
        {editing ? (
          <form
            class="rename"
            onSubmit={(ev) => {
              ev.preventDefault();
              void save();
            }}
          >
            <label for="endpoint-name" class="visually-hidden">
              Endpoint name
            </label>
            <input
              id="endpoint-name"
              value={name}
              maxLength={200}
              autoFocus
              onInput={(ev) => setName(ev.currentTarget.value)}
              onKeyDown={(ev) => {
                if (ev.key === 'Escape') setEditing(false);
              }}
            />
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <h1 class="endpoint-name">{e.name === '' ? 'Unnamed endpoint' : e.name}</h1>
            {e.kind !== 'managed' && !p.readOnly && (
              <button
                type="button"
                class="link"
                onClick={() => {
                  setName(e.name);
                  setEditing(true);
                }}
              >
                Rename
              </button>
            )}
          </>
        )}
        <span class={`badge kind-${e.kind}`}>{e.kind}</span>
        {p.readOnly ? (
          <span class="badge read-only">read-only link</span>
        ) : (
          <button type="button" class="link" aria-expanded={sharing} onClick={() => setSharing(!sharing)}>
            Share
          </button>
        )}
        <span class={`live live-${p.live.state}`} role="status" title={p.live.detail}>
          {LIVE_TEXT[p.live.state]}
        </span>
      </div>
      <ErrorText text={error} />
      <div class="receive">
        <label for="receive-url">Receive URL</label>
        <input id="receive-url" readOnly value={e.receiveUrl} onFocus={(ev) => ev.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <span class="count">{p.count} shown</span>
      </div>
      {sharing && !p.readOnly && <SharePanel endpointId={e.id} token={p.token} />}
      {!p.readOnly && (
        <SignatureForm
          endpoint={e}
          token={p.token}
          onChanged={(signature) => p.onRenamed({ ...e, signature })}
        />
      )}
      <EndpointSettings
        key={e.id}
        endpoint={e}
        token={p.token}
        canChange={e.kind !== 'managed' && !p.readOnly}
        onChanged={p.onRenamed}
      />
    </section>
  );
}
