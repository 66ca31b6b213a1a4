import { useState } from 'preact/hooks';
import { FORWARDING_STATES } from '../../../src/contract/capture-filter.js';
import { endpointPath, fetchFile } from '../api.js';
import { saveFile } from '../save-file.js';
import { ErrorText } from './error-text.js';

const TEXT_FIELDS = [
  ['method', 'Method', 'POST,PUT'],
  ['path', 'Path', '/orders/*'],
  ['header', 'Header', 'name or name:value'],
  ['query', 'Query', 'text'],
  ['q', 'Body text', 'text'],
  ['from', 'From', '2026-01-01T00:00'],
  ['to', 'To', 'ISO time'],
] as const;

/**
 * The search above the request list: the filter of contract/capture-filter.ts, one field per parameter, kept in
 * the page's address (so it can be shared, and a reload keeps it), and the HAR export of what it matches.
 */
export function FilterBar(p: {
  endpointId: string;
  token: string | undefined;
  /** The applied filter, a query string without `?`. */
  filter: string;
  problems: readonly string[];
  /** Whether the endpoint forwards: the others have no forwarding state to filter on. */
  forwards: boolean;
  onApply: (filter: string) => void;
}) {
  const [fields, setFields] = useState(() => new URLSearchParams(p.filter));
  const [error, setError] = useState('');
  const set = (name: string, value: string): void => {
    const next = new URLSearchParams(fields);
    next.set(name, value);
    setFields(next);
  };
  const apply = (): void => {
    const kept = [...fields].filter(([, v]) => v.trim() !== '');
    p.onApply(new URLSearchParams(kept).toString());
  };
  const exportHar = async (): Promise<void> => {
    try {
      const query = p.filter === '' ? '' : `?${p.filter}`;
      saveFile(
        await fetchFile(endpointPath(p.endpointId, `/requests.har${query}`), p.token),
        `${p.endpointId}.har`,
      );
      setError('');
    } catch (e: unknown) {
      setError(`Export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
    <form
      class="filter-bar"
      role="search"
      aria-label="Filter requests"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      {TEXT_FIELDS.map(([name, label, placeholder]) => (
        <label key={name} class="filter-field">
          <span>{label}</span>
          <input
            name={name}
            value={fields.get(name) ?? ''}
            placeholder={placeholder}
            maxLength={200}
            onInput={(e) => set(name, e.currentTarget.value)}
          />
        </label>
      ))}
      {p.forwards && (
        <label class="filter-field">
          <span>Forwarding</span>
          <select
            name="forwarding"
            value={fields.get('forwarding') ?? ''}
            onChange={(e) => set('forwarding', e.currentTarget.value)}
          >
            <option value="">any</option>
            {FORWARDING_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      )}
      <div class="filter-actions">
        <button type="submit" class="primary">
          Filter
        </button>
        <button
          type="button"
          disabled={p.filter === ''}
          onClick={() => {
            setFields(new URLSearchParams());
            p.onApply('');
          }}
        >
          Clear
        </button>
        <button type="button" onClick={() => void exportHar()}>
          Export HAR
        </button>
      </div>
      <ErrorText text={[...p.problems, error].filter((t) => t !== '').join('; ')} />
    </form>
  );
}
