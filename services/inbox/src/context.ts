import type { Logger } from '@portcullis/kit';
import type { FeedHub } from './live/feed-hub.js';
import type { InboxMetrics } from './metrics.js';
import type { Settings } from './settings.js';
import type { SecretBox } from './signatures/secret-box.js';
import type { InboxStore } from './store/types.js';

/** What the HTTP routes share. */
export interface InboxContext {
  settings: Readonly<Settings>;
  store: InboxStore;
  hub: FeedHub;
  metrics: InboxMetrics;
  log: Logger;
  now: () => number;
  /** Seals and opens signature secrets; undefined when the inbox keeps none (Redis without `INBOX_SECRETS_KEY`). */
  secrets: SecretBox | undefined;
}

/** The receive URL of an endpoint: never a credential for reading it. */
export function receiveUrl(settings: Pick<Settings, 'publicUrl'>, endpointId: string): string {
  return `${settings.publicUrl}/api/hook/${endpointId}`;
}
