// The anonymous endpoints this browser created, with their tokens: the only place they are remembered
// (the inbox keeps a token's hash, never the token). Account endpoints come from the server instead.

export interface RememberedEndpoint {
  id: string;
  token: string;
  name: string;
  receiveUrl: string;
}

const KEY = 'portcullis.inbox.endpoints';
/** The switcher stays small: the oldest beyond this are forgotten. */
export const MAX_REMEMBERED = 20;

export function loadRemembered(storage: Storage = localStorage): RememberedEndpoint[] {
  try {
    const parsed = JSON.parse(storage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter(isRemembered) : [];
  } catch {
    return []; // unreadable: start over rather than break the page
  }
}

/** Adds or updates one, newest first. */
export function remember(e: RememberedEndpoint, storage: Storage = localStorage): RememberedEndpoint[] {
  const next = [e, ...loadRemembered(storage).filter((r) => r.id !== e.id)].slice(0, MAX_REMEMBERED);
  storage.setItem(KEY, JSON.stringify(next));
  return next;
}

export function forget(id: string, storage: Storage = localStorage): RememberedEndpoint[] {
  const next = loadRemembered(storage).filter((r) => r.id !== id);
  storage.setItem(KEY, JSON.stringify(next));
  return next;
}

function isRemembered(v: unknown): v is RememberedEndpoint {
  const r = v as Partial<RememberedEndpoint> | null;
  return (
    typeof r?.id === 'string' &&
    typeof r.token === 'string' &&
    typeof r.name === 'string' &&
    typeof r.receiveUrl === 'string'
  );
}
