/** The endpoint a page address names: `/inspect/<id>`; undefined on `/`. */
export function endpointIdFromPath(pathname: string): string | undefined {
  const m = /^\/inspect\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  return m?.[1];
}

export const inspectPath = (id: string): string => `/inspect/${encodeURIComponent(id)}`;

/**
 * The share token a share link carries in its fragment (`/inspect/<id>#share=<token>`): the fragment never
 * reaches a server, a log or a Referer.
 */
export function shareTokenFromHash(hash: string): string | undefined {
  const m = /^#share=([A-Za-z0-9_-]{43})$/.exec(hash);
  return m?.[1];
}

/** The admin view of the managed endpoints. */
export const ADMIN_PATH = '/admin';
/** The filter an inspector address carries: its query string, without `?` (see contract/capture-filter.ts). */
export const filterFromSearch = (search: string): string => search.replace(/^\?/, '');

/** The address of an endpoint's inspector showing `filter`. */
export const inspectUrl = (id: string, filter: string): string =>
  filter === '' ? inspectPath(id) : `${inspectPath(id)}?${filter}`;

/**
 * The endpoint a pasted text names: a bare id, or any address with one (the receive URL `…/api/hook/<id>`,
 * the API's `…/api/endpoints/<id>`, the inspector's `…/inspect/<id>`); undefined for anything else.
 */
export function endpointIdFromText(text: string): string | undefined {
  const t = text.trim();
  if (/^[A-Za-z0-9_-]+$/.test(t)) return t;
  return /\/(?:inspect|api\/hook|api\/endpoints)\/([A-Za-z0-9_-]+)/.exec(t)?.[1];
}
