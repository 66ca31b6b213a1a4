export const HOOK_PREFIX = '/api/hook/';

export interface HookTarget {
  /** The raw path segment after `/api/hook/`, not decoded. */
  endpointId: string;
  /** The raw path after the id: `''` or `/…`. */
  nestedPath: string;
  /** The raw query string, without `?`. */
  query: string;
}

/** Splits a raw request-target under `/api/hook/`; undefined for anything else. */
export function splitHookUrl(rawUrl: string): HookTarget | undefined {
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  if (!path.startsWith(HOOK_PREFIX)) return undefined;
  const rest = path.slice(HOOK_PREFIX.length);
  const slash = rest.indexOf('/');
  const endpointId = slash === -1 ? rest : rest.slice(0, slash);
  if (endpointId === '') return undefined;
  return {
    endpointId,
    nestedPath: slash === -1 ? '' : rest.slice(slash),
    query: q === -1 ? '' : rawUrl.slice(q + 1),
  };
}
