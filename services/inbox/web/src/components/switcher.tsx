import type { EndpointView } from '../api.js';
import type { RememberedEndpoint } from '../remembered.js';

const label = (name: string, id: string): string => (name === '' ? id : `${name} (${id.slice(0, 6)}…)`);

/** The remembered endpoints (this browser's anonymous ones, the account's) and a button for a new one. */
export function Switcher(p: {
  remembered: RememberedEndpoint[];
  owned: EndpointView[];
  currentId: string | undefined;
  onOpen: (id: string) => void;
  onCreate: () => Promise<void>;
}) {
  const known = p.currentId !== undefined && [...p.remembered, ...p.owned].some((e) => e.id === p.currentId);
  return (
    <div class="switcher">
      <label for="switch-endpoint" class="visually-hidden">
        Switch endpoint
      </label>
      <select
        id="switch-endpoint"
        value={known ? p.currentId : ''}
        onChange={(e) => {
          const id = e.currentTarget.value;
          if (id !== '') p.onOpen(id);
        }}
      >
        <option value="" disabled>
          {known ? '' : 'Switch endpoint…'}
        </option>
        {p.owned.length > 0 && (
          <optgroup label="Account">
            {p.owned.map((e) => (
              <option key={e.id} value={e.id}>
                {label(e.name, e.id)}
              </option>
            ))}
          </optgroup>
        )}
        {p.remembered.length > 0 && (
          <optgroup label="This browser">
            {p.remembered.map((e) => (
              <option key={e.id} value={e.id}>
                {label(e.name, e.id)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <button type="button" onClick={() => void p.onCreate()}>
        New endpoint
      </button>
    </div>
  );
}
