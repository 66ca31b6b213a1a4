/** URL paths of the Kubernetes API, parsed into what the server serves. */

export interface ResourcePath {
  group: string;
  version: string;
  plural: string;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  /** The deprecated `/watch/` prefix form of a watch. */
  watchPrefix: boolean;
}

export type Route =
  | { kind: 'version' }
  | { kind: 'health' }
  | { kind: 'core-versions' }
  | { kind: 'group-list' }
  | { kind: 'group'; group: string }
  | { kind: 'resource-list'; group: string; version: string }
  | { kind: 'openapi-v3-index' }
  | { kind: 'openapi-v3-document' }
  | { kind: 'resource'; path: ResourcePath }
  | { kind: 'unknown' };

export function parseRoute(pathname: string): Route {
  const segments = pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  const [first, second, third] = segments;
  switch (first) {
    case 'version':
      return segments.length === 1 ? { kind: 'version' } : { kind: 'unknown' };
    case 'healthz':
    case 'livez':
    case 'readyz':
      return { kind: 'health' };
    case 'openapi':
      if (second !== 'v3') return { kind: 'unknown' };
      return segments.length === 2 ? { kind: 'openapi-v3-index' } : { kind: 'openapi-v3-document' };
    case 'api':
      if (second === undefined) return { kind: 'core-versions' };
      if (segments.length === 2) return { kind: 'resource-list', group: '', version: second };
      return parseResource('', second, segments.slice(2));
    case 'apis':
      if (second === undefined) return { kind: 'group-list' };
      if (third === undefined) return { kind: 'group', group: second };
      if (segments.length === 3) return { kind: 'resource-list', group: second, version: third };
      return parseResource(second, third, segments.slice(3));
    case undefined:
    default:
      return { kind: 'unknown' };
  }
}

function parseResource(group: string, version: string, segments: string[]): Route {
  let rest = segments;
  const watchPrefix = rest[0] === 'watch';
  if (watchPrefix) rest = rest.slice(1);
  let namespace: string | undefined;
  const isNamespaceSubresource = rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
  if (rest[0] === 'namespaces' && rest.length >= 3 && !isNamespaceSubresource) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource] = rest;
  if (plural === undefined || rest.length > 3) return { kind: 'unknown' };
  return { kind: 'resource', path: { group, version, plural, namespace, name, subresource, watchPrefix } };
}
