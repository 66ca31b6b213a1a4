/** The API group and version of every Portcullis custom resource. */
export const GROUP = 'portcullis.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** The kinds, in the order they are generated and reconciled. */
export const KINDS = ['RateLimitConfig', 'ApiRoute', 'InboxEndpoint'] as const;
export type Kind = (typeof KINDS)[number];

export function isKind(kind: unknown): kind is Kind {
  return typeof kind === 'string' && (KINDS as readonly string[]).includes(kind);
}
