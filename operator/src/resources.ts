import type { Kind, ResourceStatus } from '@portcullis/config';

/** The custom resources the operator reconciles, as the API server (or a manifest file) gives them. */
export interface Resource {
  apiVersion: string;
  kind: Kind;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation: number;
    resourceVersion?: string;
    creationTimestamp: string;
  };
  spec: unknown;
  status?: ResourceStatus;
}

/** `namespace/name`: how resources are named in logs, errors and xDS resource names. */
export function resourceName(r: Pick<Resource, 'metadata'>): string {
  return `${r.metadata.namespace}/${r.metadata.name}`;
}

/**
 * Older first, then by name: the order in which resources claim a domain, a route or an endpoint id.
 * Code-point order, not the locale's: the same in every process, and cheap over 10,000 resources.
 */
export function byAge(a: Resource, b: Resource): number {
  return (
    compare(a.metadata.creationTimestamp, b.metadata.creationTimestamp) ||
    compare(a.metadata.namespace, b.metadata.namespace) ||
    compare(a.metadata.name, b.metadata.name)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
