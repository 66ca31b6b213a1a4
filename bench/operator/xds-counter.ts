import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { quietLog } from '@portcullis/testing';
import { createSotwClient, type SotwClient } from '@portcullis/xds';
import type { OnCleanup } from '../common/run-bench.js';

export const API_ROUTE_TYPE = 'type.googleapis.com/portcullis.config.v1.ApiRoute';
export const INBOX_ENDPOINT_TYPE = 'type.googleapis.com/portcullis.config.v1.InboxEndpoint';
const TIMEOUT_MS = 120_000;

/**
 * An xDS client standing in for the gateway and the inbox: it subscribes to ApiRoutes and InboxEndpoints
 * and only counts what each response holds (decoding and applying them is those services' cost, not the
 * operator's).
 */
export interface XdsCounter {
  /** Resources in the last response of each type. */
  readonly counts: ReadonlyMap<string, number>;
  /** Resolves once the last response of each type holds `expected[type]` resources. */
  waitFor(expected: Readonly<Record<string, number>>): Promise<void>;
}

export function startXdsCounter(o: { xdsPort: number }, onCleanup: OnCleanup): XdsCounter {
  const counts = new Map<string, number>();
  const client: SotwClient = createSotwClient({
    serverUrl: `127.0.0.1:${o.xdsPort}`,
    nodeId: 'bench-gateway-and-inbox',
    typeUrls: [API_ROUTE_TYPE, INBOX_ENDPOINT_TYPE],
    retryIntervalMs: 200,
    log: quietLog,
    onResources: (typeUrl, _version, resources) => {
      counts.set(typeUrl, resources.length);
    },
  });
  client.start();
  onCleanup(() => client.close());
  return {
    counts,
    async waitFor(expected) {
      const deadline = performance.now() + TIMEOUT_MS;
      while (!Object.entries(expected).every(([type, n]) => counts.get(type) === n)) {
        if (performance.now() > deadline) {
          throw new Error(
            `xDS counter: ${JSON.stringify([...counts])}, expected ${JSON.stringify(expected)}`,
          );
        }
        await sleep(10);
      }
    },
  };
}
