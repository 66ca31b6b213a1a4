import { useEffect, useState } from 'preact/hooks';
import { ErrorText } from './error-text.js';
import { callApi, endpointPath, type CircuitReport, type DeadLetterPage } from '../api.js';

/** How often the panel asks again: circuits open and close, letters arrive, whatever this page does. */
const REFRESH_MS = 5_000;
const PAGE_SIZE = 50;

/**
 * A forwarding endpoint's troubles: each target whose circuit breaker is open (or counting failures), and
 * the dead letters with a Redrive button each and Redrive all.
 */
export function ForwardingHealth(p: { endpointId: string; token: string | undefined }) {
  const [circuits, setCircuits] = useState<CircuitReport[]>([]);
  const [page, setPage] = useState<DeadLetterPage>({ deadLetters: [], nextBefore: null });
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [round, setRound] = useState(0);
  const refresh = () => setRound((r) => r + 1);

  useEffect(() => {
    let stopped = false;
    const { endpointId, token } = p;
    Promise.all([
      callApi<{ circuits: CircuitReport[] }>('GET', endpointPath(endpointId, '/circuits'), { token }),
      callApi<DeadLetterPage>('GET', endpointPath(endpointId, `/dead-letters?limit=${PAGE_SIZE}`), { token }),
    ])
      .then(([c, d]) => {
        if (stopped) return;
        setCircuits(c.circuits);
        setPage(d);
        setError('');
      })
      .catch((e: unknown) => {
        if (!stopped)
          setError(`Could not load forwarding state: ${e instanceof Error ? e.message : String(e)}`);
      });
    const timer = setTimeout(refresh, REFRESH_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [p.endpointId, p.token, round]);

  const redrive = async (path: string, what: string) => {
    try {
      const r = await callApi<Record<string, unknown>>('POST', endpointPath(p.endpointId, path), {
        token: p.token,
      });
      setNotice(
        typeof r.redriven === 'number'
          ? `Redriven: ${r.redriven}${Number(r.busy) > 0 ? `, ${String(r.busy)} still being forwarded` : ''}`
          : `Redriven ${what}`,
      );
    } catch (e: unknown) {
      setNotice(`Could not redrive ${what}: ${e instanceof Error ? e.message : String(e)}`);
    }
    refresh();
  };

  const letters = page.deadLetters;
  return (
    <section class="forwarding-health" aria-label="Forwarding">
      <ErrorText text={error} />
      <ul class="circuits">
        {circuits.map((c) => (
          <li key={`${c.worker} ${c.target}`} class={`circuit circuit-${c.state}`} role="status">
            {circuitText(c)}
          </li>
        ))}
      </ul>
      <h2 class="dead-letters-title">
        Dead letters ({letters.length}
        {page.nextBefore === null ? '' : '+'})
      </h2>
      {letters.length === 0 ? (
        <p class="muted">None: every capture reached its targets, or is still being tried.</p>
      ) : (
        <>
          <button type="button" onClick={() => void redrive('/dead-letters/redrive', 'all')}>
            Redrive all
          </button>
          <table class="pairs dead-letters">
            <thead>
              <tr>
                <th scope="col">Request</th>
                <th scope="col">Target</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last</th>
                <th scope="col">At</th>
                <th scope="col">
                  <span class="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {letters.map((l) => (
                <tr key={l.id}>
                  <td>{l.requestId}</td>
                  <td>{l.target}</td>
                  <td>{l.attempts}</td>
                  <td>{l.last}</td>
                  <td>{l.at}</td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Redrive ${l.requestId} to ${l.target}`}
                      onClick={() =>
                        void redrive(`/dead-letters/${encodeURIComponent(l.id)}/redrive`, l.requestId)
                      }
                    >
                      Redrive
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <p class="notice" role="status" aria-live="polite">
        {notice}
      </p>
    </section>
  );
}

function circuitText(c: CircuitReport): string {
  const failures = `${c.failures} failure${c.failures === 1 ? '' : 's'}`;
  const where = `target ${c.target} (${c.worker})`;
  if (c.state === 'open')
    return `${where}: circuit open until ${new Date(c.openUntil ?? '').toLocaleTimeString()}, ${failures}`;
  if (c.state === 'half-open')
    return `${where}: circuit half-open (the next delivery probes it), ${failures}`;
  return `${where}: circuit closed, ${failures} in a row`;
}
