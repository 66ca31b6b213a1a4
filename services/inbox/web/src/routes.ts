/** The endpoint a page address names: `/inspect/<id>`; undefined on `/`. */
export function endpointIdFromPath(pathname: string): string | undefined {
  const m = /^\/inspect\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  return m?.[1];
}

export const inspectPath = (id: string): string => `/inspect/${encodeURIComponent(id)}`;
