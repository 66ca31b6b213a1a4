import type { ReceivedResource } from './types.js';
import { createSotwClient, type AppliedFields, type SotwClientOptions } from './sotw-client.js';

export interface XdsSubscriptionOptions<T> extends Omit<SotwClientOptions, 'typeUrls' | 'onResources'> {
  /** The one type subscribed to (wildcard). */
  typeUrl: string;
  /**
   * The config of a type's full resource set. Throwing refuses the update: it is NACKed with the error's
   * message, and the config in force stays.
   */
  decode: (resources: readonly ReceivedResource[]) => T;
  /** Puts a decoded config in force; throwing or rejecting NACKs as `decode` does. */
  apply: (config: T, version: string) => void | Promise<void>;
  /** Fields the `xDS config applied` line adds about the config: `{ routes: 12 }`. */
  describe?: (config: T) => AppliedFields;
}

/** A lifecycle `Part` (`name`, `start()`, `close()`) that also tells when its first config is in force. */
export interface XdsSubscription {
  /** `xds-client`. */
  readonly name: string;
  /** Opens the stream; reconnects by itself until `close()`. Does not wait for a config. */
  start(): void;
  close(): Promise<void>;
  /**
   * Resolves once a first config has been applied (and ACKed); rejects with XdsClientClosedError when
   * closed before. A config refused meanwhile does not count: the promise waits for a good one.
   */
  firstUpdate(): Promise<void>;
  /** True once a first config has been applied, for a readiness check. */
  readonly applied: boolean;
  /** True while a stream is open and has delivered a response. */
  readonly connected: boolean;
}

/**
 * Subscribes to one xDS type the way the gateway and the inbox do: each response is decoded whole, then
 * applied; either failing NACKs it (the client logs `xDS config rejected` with the message) and keeps the
 * last good config, success ACKs it (`xDS config applied`, with `describe`'s fields).
 */
export function createXdsSubscription<T>(o: XdsSubscriptionOptions<T>): XdsSubscription {
  const { typeUrl, decode, apply, describe, ...connection } = o;
  let applied = false;
  let inForce: { config: T } | undefined;
  const client = createSotwClient({
    ...connection,
    typeUrls: [typeUrl],
    onResources: async (_typeUrl, version, resources) => {
      const config = decode(resources);
      await apply(config, version);
      inForce = { config };
    },
    describeApplied: () => (inForce && describe ? describe(inForce.config) : {}),
  });
  const first = client.firstUpdate().then(() => {
    applied = true;
  });
  first.catch(() => undefined); // handled by whoever awaits firstUpdate(); nobody has to
  return {
    name: client.name,
    start: () => client.start(),
    close: () => client.close(),
    firstUpdate: () => first,
    get applied() {
      return applied;
    },
    get connected() {
      return client.connected;
    },
  };
}
