/** The endpoint a page address names: `/inspect/<id>`; undefined on `/`. */
export function endpointIdFromPath(pathname: string): string | undefined {
  const m = /^\/inspect\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  return m?.[1];
}

export const inspectPath = (id: string): string => `/inspect/${encodeURIComponent(id)}`;

/** The filter an inspector address carries: its query string, without `?` (see search/capture-filter.ts). */
export const filterFromSearch = (search: string): string => search.replace(/^\?/, '');

/** The address of an endpoint's inspector showing `filter`. */
export const inspectUrl = (id: string, filter: string): string =>
  filter === '' ? inspectPath(id) : `${inspectPath(id)}?${filter}`;
