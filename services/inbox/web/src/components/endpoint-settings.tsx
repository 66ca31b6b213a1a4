import { useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import { callApi, endpointPath, type EndpointResponse, type EndpointView } from '../api.js';
import { DURATION_UNITS, formatAge, splitDuration, toSeconds, type DurationUnit } from '../duration.js';

/** `Name: value` lines, as the form shows headers; blank lines are skipped. */
export function parseHeaderLines(text: string): Array<{ name: string; value: string }> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const colon = line.indexOf(':');
      return colon === -1
        ? { name: line.trim(), value: '' }
        : { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() };
    });
}

/**
 * What the endpoint keeps and answers, in one line; where it may be changed, a form that sets both (a managed
 * endpoint's come from its resource). The server validates: its 400 names each field.
 */
export function EndpointSettings(p: {
  endpoint: EndpointView;
  token: string | undefined;
  /** False for a managed endpoint (its resource says) and through a share link (read-only). */
  canChange: boolean;
  onChanged: (e: EndpointView) => void;
}) {
  const e = p.endpoint;
  const [open, setOpen] = useState(false);
  const [error, setError] = useState('');
  const r = e.response;
  const [status, setStatus] = useState(String(r?.status ?? 200));
  const [headers, setHeaders] = useState(r?.headers.map((h) => `${h.name}: ${h.value}`).join('\n') ?? '');
  const [body, setBody] = useState(r?.body ?? '');
  const [delayMs, setDelayMs] = useState(String(r?.delayMs ?? 0));
  const [maxRequests, setMaxRequests] = useState(String(e.retention.maxRequests));
  const [maxAge, setMaxAge] = useState(() => {
    const { amount, unit } = splitDuration(e.retention.maxAgeSeconds);
    return { amount: String(amount), unit };
  });

  const run = async (change: () => Promise<EndpointView>) => {
    try {
      p.onChanged(await change());
      setError('');
      setOpen(false);
    } catch (err: unknown) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  const saveResponse = () =>
    run(async () => {
      const wanted = {
        status: Number(status),
        headers: parseHeaderLines(headers),
        body,
        delayMs: Number(delayMs),
      };
      const put = { token: p.token, body: wanted };
      const set = await callApi<{ response: EndpointResponse }>('PUT', endpointPath(e.id, '/response'), put);
      return { ...e, response: set.response };
    });
  const resetResponse = () =>
    run(async () => {
      await callApi('DELETE', endpointPath(e.id, '/response'), { token: p.token });
      return { ...e, response: null };
    });
  const saveRetention = () =>
    run(async () => {
      const maxAgeSeconds = toSeconds(maxAge.amount, maxAge.unit);
      const body = { maxRequests: Number(maxRequests), maxAgeSeconds };
      const retention = await callApi<EndpointView['retention']>('PUT', endpointPath(e.id, '/retention'), {
        token: p.token,
        body,
      });
      return { ...e, retention };
    });

  const answer = r
    ? `answers ${r.status}${r.delayMs > 0 ? ` after ${r.delayMs} ms` : ''}`
    : 'answers 200 {"ok":true}';
  return (
    <div class="endpoint-settings">
      <p class="settings-summary">
        Keeps the newest {e.retention.maxRequests}, {formatAge(e.retention.maxAgeSeconds)}; {answer}
        {p.canChange && (
          <button type="button" class="link" aria-expanded={open} onClick={() => setOpen(!open)}>
            Settings
          </button>
        )}
      </p>
      <ErrorText text={error} />
      {open && (
        <div class="settings-forms">
          <form
            aria-label="Response"
            onSubmit={(ev) => {
              ev.preventDefault();
              void saveResponse();
            }}
          >
            <h2>Response</h2>
            <label>
              Status
              <input
                type="number"
                min={200}
                max={599}
                value={status}
                onInput={(ev) => setStatus(ev.currentTarget.value)}
              />
            </label>
            <label>
              Delay (ms)
              <input
                type="number"
                min={0}
                max={10000}
                value={delayMs}
                onInput={(ev) => setDelayMs(ev.currentTarget.value)}
              />
              <span class="help">At most 10000</span>
            </label>
            <label>
              Headers
              <textarea
                rows={3}
                value={headers}
                placeholder="Content-Type: text/plain"
                onInput={(ev) => setHeaders(ev.currentTarget.value)}
              />
              <span class="help">
                One <code>Name: value</code> a line
              </span>
            </label>
            <label>
              Body
              <textarea rows={3} value={body} onInput={(ev) => setBody(ev.currentTarget.value)} />
              <span class="help">
                Text; <code>{'{{body.field}}'}</code> is that field of the request JSON
              </span>
            </label>
            <div class="form-actions">
              <button type="submit" class="primary">
                Save response
              </button>
              <button type="button" onClick={() => void resetResponse()}>
                Default answer
              </button>
            </div>
          </form>
          <form
            aria-label="Retention"
            onSubmit={(ev) => {
              ev.preventDefault();
              void saveRetention();
            }}
          >
            <h2>Retention</h2>
            <label>
              Keep the newest
              <input
                type="number"
                min={1}
                value={maxRequests}
                onInput={(ev) => setMaxRequests(ev.currentTarget.value)}
              />
            </label>
            <div class="field">
              <label for="retention-age">For</label>
              <span class="duration">
                <input
                  id="retention-age"
                  type="number"
                  min={1}
                  step="any"
                  value={maxAge.amount}
                  onInput={(ev) => setMaxAge({ ...maxAge, amount: ev.currentTarget.value })}
                />
                <select
                  aria-label="Retention unit"
                  value={maxAge.unit}
                  onChange={(ev) => setMaxAge({ ...maxAge, unit: ev.currentTarget.value as DurationUnit })}
                >
                  {DURATION_UNITS.map(([unit]) => (
                    <option key={unit} value={unit}>
                      {unit}
                    </option>
                  ))}
                </select>
              </span>
            </div>
            <div class="form-actions">
              <button type="submit" class="primary">
                Save retention
              </button>
            </div>
          </form>
        </div>
      )}
    </div>
  );
}
