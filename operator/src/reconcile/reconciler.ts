import { KINDS, type Kind } from '../resources.js';
import type { ResourceStore } from '../store.js';
import { HANDLERS } from './handlers.js';
import { KindReconciler } from './reconcile-kind.js';
import type { KindResult } from './types.js';

/** Reconciles all three kinds from the store; a pure function of the store plus each kind's last good state. */
export class Reconciler {
  private readonly kinds: { [K in Kind]: KindReconciler<unknown> };

  constructor() {
    this.kinds = {
      RateLimitConfig: new KindReconciler(HANDLERS.RateLimitConfig),
      ApiRoute: new KindReconciler(HANDLERS.ApiRoute),
      InboxEndpoint: new KindReconciler(HANDLERS.InboxEndpoint),
    };
  }

  reconcile(store: ResourceStore): Record<Kind, KindResult> {
    const out = {} as Record<Kind, KindResult>;
    for (const kind of KINDS) out[kind] = this.kinds[kind].reconcile(store.list(kind));
    return out;
  }
}
