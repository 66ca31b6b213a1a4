import type { Logger, Part, Readiness } from '@portcullis/kit';
import { createXdsSubscription } from '@portcullis/xds';
import { endpointsFromResources, INBOX_ENDPOINT_TYPE } from './managed-endpoints/inbox-endpoint-resources.js';
import { createManagedSync } from './managed-endpoints/managed-sync.js';
import type { Settings } from './settings.js';
import type { SecretBox } from './signatures/secret-box.js';
import type { InboxStore } from './store/types.js';

export interface ManagedEndpointsOptions {
  store: InboxStore;
  secrets: SecretBox | undefined;
  log: Logger;
  /** Names `xds` until the first InboxEndpoints are applied. */
  readiness: Readiness;
}

/**
 * The InboxEndpoint resources of the xDS server (`INBOX_XDS_SERVER_URL`; none without it), synced into the
 * store: `sync` subscribes and, closed, stops; `firstUpdate` waits for the first set to be applied. Two parts,
 * as the HTTP server starts between them.
 */
export function createManagedEndpointsParts(
  settings: Pick<Settings, 'xds'>,
  o: ManagedEndpointsOptions,
): { sync: Part; firstUpdate: Part } {
  const { store, secrets, log, readiness } = o;
  const sync = createManagedSync({ store, log });
  // a Redis restarted without persistence comes back without the managed endpoints: the last set is put back
  const stopReapplying = store.onReconnect(() => void sync.reapply());
  const xds = settings.xds.serverUrl
    ? createXdsSubscription({
        ...settings.xds,
        log,
        typeUrl: INBOX_ENDPOINT_TYPE,
        decode: (resources) => endpointsFromResources(resources, { secrets, log }),
        apply: (endpoints) => sync.apply(endpoints),
        describe: (endpoints) => ({ endpoints: endpoints.length }),
      })
    : undefined;
  if (xds) readiness.health.register('xds', false);
  return {
    sync: {
      name: 'managed endpoints',
      start: () => xds?.start(),
      close: async () => {
        stopReapplying();
        sync.close();
        await xds?.close();
      },
    },
    firstUpdate: {
      // the port is open meanwhile: /healthz answers, /readyz names xds
      name: 'first InboxEndpoints',
      start: async () => {
        await xds?.firstUpdate();
        readiness.health.set('xds', true);
      },
      close: () => undefined,
    },
  };
}
