import { ConfigError, NotSupportedOverXdsError } from '@portcullis/config';
import { byAge, resourceName, type Resource } from '../resources.js';
import type { KindHandler, KindResult, Outcome, RefsStatus, Rejection, SecretLookup } from './types.js';

interface Good<M> {
  generation: number;
  model: M;
}

/**
 * Reconciles every resource of one kind. Older resources claim first, so a newer one that repeats a
 * domain (or route, or endpoint id) is rejected and never displaces the older. A resource whose new
 * generation is invalid keeps serving its last good generation, remembered here by uid.
 */
export class KindReconciler<M> {
  private readonly lastGood = new Map<string, Good<M>>();

  constructor(private readonly handler: KindHandler<M>) {}

  /**
   * `secrets`: what the resources' Secret references read. `reserved` claims are held by someone outside
   * this kind (the gateway's rate-limit domain, say).
   */
  reconcile(
    resources: readonly Resource[],
    secrets: SecretLookup,
    reserved: ReadonlyMap<string, string> = new Map(),
  ): KindResult<M> {
    const owners = new Map<string, string>(reserved);
    const models: KindResult<M>['models'] = [];
    const outcomes: Outcome[] = [];
    const served: KindResult['resources'] = [];
    const present = new Set<string>();
    for (const resource of [...resources].sort(byAge)) {
      const name = resourceName(resource);
      const { uid, generation } = resource.metadata;
      present.add(uid);
      let rejection: Rejection | undefined;
      let model: M | undefined;
      try {
        model = this.handler.parse(name, resource.spec);
      } catch (err: unknown) {
        if (err instanceof NotSupportedOverXdsError)
          rejection = { reason: 'NotSupportedOverXds', message: err.message };
        else if (err instanceof ConfigError) rejection = { reason: 'Invalid', message: err.message };
        else throw err;
      }
      if (model !== undefined) {
        const taken = this.handler.claims(model).find((c) => owners.has(c));
        if (taken !== undefined) {
          rejection = {
            reason: 'Conflict',
            message: this.handler.conflictMessage(taken, owners.get(taken) ?? ''),
          };
        } else {
          this.lastGood.set(uid, { generation, model });
        }
      }
      const good = this.lastGood.get(uid);
      const usable = good && !this.handler.claims(good.model).some((c) => owners.has(c)) ? good : undefined;
      let refs: RefsStatus | undefined;
      if (usable) {
        for (const c of this.handler.claims(usable.model)) owners.set(c, name);
        const encoded = this.handler.encode(resource, usable.model, secrets);
        refs = encoded.refs;
        served.push({ name, value: encoded.value });
        models.push({ name, model: usable.model });
      }
      outcomes.push({ resource, rejection, servedGeneration: usable?.generation, ...(refs ? { refs } : {}) });
    }
    for (const uid of this.lastGood.keys()) if (!present.has(uid)) this.lastGood.delete(uid);
    return { typeUrl: this.handler.typeUrl, outcomes, resources: served, models };
  }
}
