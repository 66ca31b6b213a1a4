import { useEffect, useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import {
  callApi,
  endpointPath,
  fetchBody,
  type CaptureDetail,
  type CaptureSummary,
  type EndpointView,
  type ReplayResult,
} from '../api.js';
import { formatBytes, fromBase64 } from '../bytes.js';
import { toCurl } from '../curl.js';
import { JsonTree } from './json-tree.js';
import { isBadgeShown, SignatureBadge } from './signature-badge.js';
import { Tabs } from './tabs.js';
import { saveFile } from '../save-file.js';

/** Shown of a body that is not text: enough to recognise it. */
const HEX_PREVIEW_BYTES = 512;

/** One captured request: summary line, actions (cURL, download, replay unless `readOnly`) and the tabs. */
export function RequestDetail(p: {
  endpoint: EndpointView;
  summary: CaptureSummary;
  token: string | undefined;
  readOnly: boolean;
  /** Whether the endpoint forwards (a managed one): the others have no Forwarding tab. */
  forwards: boolean;
}) {
  const [detail, setDetail] = useState<CaptureDetail>();
  const [error, setError] = useState('');
  const [tab, setTab] = useState('body');
  const path = endpointPath(p.endpoint.id, `/requests/${encodeURIComponent(p.summary.id)}`);
  // a new attempt shown in the list (live) is read into the open detail too
  const outcome = JSON.stringify(p.summary.lastForwarding ?? null);

  useEffect(() => {
    let current = true;
    callApi<CaptureDetail>('GET', path, { token: p.token })
      .then((d) => current && setDetail(d))
      .catch((e: unknown) => current && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      current = false;
    };
  }, [path, p.token, outcome]);

  const s = p.summary;
  return (
    <section class="detail" aria-label="Request detail">
      <div class="detail-head">
        <span class={`method m-${s.method.toLowerCase()}`}>{s.method}</span>
        <code class="detail-url">{s.url}</code>
        <span class="meta">
          {new Date(s.time).toLocaleString()} · {formatBytes(s.bodySize)} · from {s.remoteAddress}
        </span>
        {isBadgeShown(s.signature, p.endpoint.signature !== null) && (
          <SignatureBadge signature={s.signature} />
        )}
        {s.signature.status === 'failed' && <span class="sig-reason">{s.signature.message}</span>}
      </div>
      <ErrorText text={error} />
      {detail && <Actions endpoint={p.endpoint} detail={detail} token={p.token} readOnly={p.readOnly} />}
      {detail && (
        <Tabs
          label="Request parts"
          active={tab}
          onChange={setTab}
          tabs={[
            { id: 'body', label: 'Body', render: () => <BodyPanel d={detail} /> },
            {
              id: 'headers',
              label: `Headers (${detail.headers.length})`,
              render: () => <PairsTable pairs={detail.headers} />,
            },
            { id: 'query', label: 'Query', render: () => <QueryPanel d={detail} /> },
            { id: 'raw', label: 'Raw', render: () => <pre class="raw">{detail.raw}</pre> },
            ...(p.forwards
              ? [{ id: 'forwarding', label: 'Forwarding', render: () => <ForwardingPanel d={detail} /> }]
              : []),
          ]}
        />
      )}
    </section>
  );
}

function Actions(p: {
  endpoint: EndpointView;
  detail: CaptureDetail;
  token: string | undefined;
  readOnly: boolean;
}) {
  const [curl, setCurl] = useState<string>();
  const [to, setTo] = useState('');
  const [replay, setReplay] = useState<{ ok: boolean; text: string }>();
  const d = p.detail;
  const original = new URL(d.url, new URL(p.endpoint.receiveUrl)).href;

  const copyCurl = async () => {
    const command = toCurl(d, original);
    setCurl(command);
    await navigator.clipboard.writeText(command).catch(() => undefined); // the text stays shown below
  };
  const download = async () => {
    saveFile(await fetchBody(p.endpoint.id, d.id, p.token), `${d.id}.bin`);
  };
  const send = async () => {
    setReplay(undefined);
    try {
      const r = await callApi<ReplayResult>(
        'POST',
        endpointPath(p.endpoint.id, `/requests/${encodeURIComponent(d.id)}/replay`),
        {
          token: p.token,
          body: { to },
        },
      );
      setReplay({ ok: true, text: `${r.target} answered ${r.status}` });
    } catch (e: unknown) {
      setReplay({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <div class="actions">
      <div class="row">
        <button type="button" onClick={() => void copyCurl()}>
          Copy as cURL
        </button>
        <button type="button" onClick={() => void download()}>
          Download body
        </button>
        <span class="meta" title="SHA-256 of the body as received">
          sha256 {d.bodySha256.slice(0, 12)}…
        </span>
      </div>
      {curl !== undefined && (
        <label class="curl">
          cURL command
          <textarea readOnly rows={3} value={curl} onFocus={(e) => e.currentTarget.select()} />
        </label>
      )}
      {!p.readOnly && (
        <form
          class="replay row"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <label for="replay-to">Replay to</label>
          <input
            id="replay-to"
            type="url"
            required
            placeholder="https://example.com/webhooks"
            value={to}
            onInput={(e) => setTo(e.currentTarget.value)}
          />
          <button type="submit">Replay</button>
          {replay && (
            <span class={replay.ok ? 'ok' : 'error'} role="status">
              {replay.text}
            </span>
          )}
        </form>
      )}
    </div>
  );
}

function BodyPanel({ d }: { d: CaptureDetail }) {
  const view = d.body;
  switch (view.kind) {
    case 'empty':
      return <p class="muted">No body.</p>;
    case 'json':
      return <JsonTree value={view.value} />;
    case 'form':
      return (
        <PairsTable
          pairs={Object.entries(view.fields).flatMap(([k, v]) =>
            (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]),
          )}
        />
      );
    case 'text':
      return (
        <>
          {view.jsonError !== undefined && (
            <p class="muted">Declared as JSON, but does not parse: {view.jsonError}</p>
          )}
          <pre class="body-text">{view.text}</pre>
        </>
      );
    case 'none': {
      const bytes = fromBase64(d.bodyBase64);
      return (
        <>
          <p class="muted">
            {view.reason === 'encoded' ? 'Compressed body' : 'Binary body'}, {formatBytes(bytes.length)}: the
            exact bytes are kept (download them above). First {Math.min(bytes.length, HEX_PREVIEW_BYTES)}{' '}
            bytes:
          </p>
          <pre class="hex">{hexDump(bytes.subarray(0, HEX_PREVIEW_BYTES))}</pre>
        </>
      );
    }
    default: {
      const unknown: never = view;
      return unknown;
    }
  }
}

function QueryPanel({ d }: { d: CaptureDetail }) {
  const pairs = Object.entries(d.queryParams).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, x]),
  );
  if (d.query === '') return <p class="muted">No query string.</p>;
  return (
    <>
      <pre class="raw">?{d.query}</pre>
      <PairsTable pairs={pairs} />
    </>
  );
}

function ForwardingPanel({ d }: { d: CaptureDetail }) {
  const attempts = d.forwarding ?? [];
  if (attempts.length === 0)
    return (
      <p class="muted">No forwarding attempts (the endpoint has no forward targets, or none ran yet).</p>
    );
  return (
    <>
      <ul class="target-outcomes" aria-label="Each target's latest outcome">
        {(d.forwardingByTarget ?? []).map((a) => (
          <li key={a.target}>
            {a.target}: <span class={`fwd fwd-${a.outcome}`}>{a.outcome}</span>
          </li>
        ))}
      </ul>
      <table class="pairs">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Target</th>
            <th scope="col">Result</th>
            <th scope="col">Outcome</th>
            <th scope="col">At</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a, i) => (
            // a redriven target starts its count again: the attempt number is not unique
            <tr key={i}>
              <td>{a.attempt}</td>
              <td>{a.target}</td>
              <td>{a.status ?? a.error}</td>
              <td>{a.outcome}</td>
              <td>{a.at}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function PairsTable({ pairs }: { pairs: Array<[string, string]> }) {
  return (
    <table class="pairs">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {pairs.map(([name, value], i) => (
          <tr key={i}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const chunk = [...bytes.subarray(i, i + 16)];
    const hex = chunk.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = chunk.map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${i.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join('\n');
}
