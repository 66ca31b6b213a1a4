import { ConfigError, NotSupportedOverXdsError } from '@portcullis/config';
import { byAge, resourceName, type Resource } from '../resources.js';
import type {
  Encoded,
  KindHandler,
  KindResult,
  Outcome,
  RefsStatus,
  Rejection,
  SecretLookup,
} from './types.js';

interface Good<M> {
  generation: number;
  model: M;
  claims: readonly string[];
}

/** What a generation's spec validated into: a model and its claims, or why not. */
interface Parsed<M> {
  generation: number;
  model: M | undefined;
  claims: readonly string[];
  rejection: Rejection | undefined;
}

/**
 * Reconciles every resource of one kind. Older resources claim first, so a newer one that repeats a
 * domain (or route, or endpoint id) is rejected and never displaces the older. A resource whose new
 * generation is invalid keeps serving its last good generation, remembered here by uid.
 *
 * A spec is validated once per generation (the generation moves exactly when the spec does, in both
 * sources), and an encoding that reads no Secret is kept per served generation, so a reconcile after one
 * edit validates and encodes that resource alone; claims are still checked across all of them.
 */
export class KindReconciler<M> {
  private readonly lastGood = new Map<string, Good<M>>();
  private readonly parsed = new Map<string, Parsed<M>>();
  private readonly encoded = new Map<string, { generation: number; value: Uint8Array }>();

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
      let parsed = this.parsed.get(uid);
      if (parsed?.generation !== generation) {
        parsed = this.parse(name, generation, resource.spec);
        this.parsed.set(uid, parsed);
      }
      const { model, claims } = parsed;
      let rejection = parsed.rejection;
      if (model !== undefined) {
        const taken = claims.find((c) => owners.has(c));
        if (taken !== undefined) {
          rejection = {
            reason: 'Conflict',
            message: this.handler.conflictMessage(taken, owners.get(taken) ?? ''),
          };
        } else if (this.lastGood.get(uid)?.generation !== generation) {
          this.lastGood.set(uid, { generation, model, claims });
        }
      }
      const good = this.lastGood.get(uid);
      const usable = good && !good.claims.some((c) => owners.has(c)) ? good : undefined;
      let refs: RefsStatus | undefined;
      if (usable) {
        for (const c of usable.claims) owners.set(c, name);
        const encoded = this.encode(resource, usable, secrets);
        refs = encoded.refs;
        served.push({ name, value: encoded.value });
        models.push({ name, model: usable.model });
      }
      outcomes.push({ resource, rejection, servedGeneration: usable?.generation, ...(refs ? { refs } : {}) });
    }
    for (const cache of [this.lastGood, this.parsed, this.encoded])
      for (const uid of cache.keys()) if (!present.has(uid)) cache.delete(uid);
    return { typeUrl: this.handler.typeUrl, outcomes, resources: served, models };
  }

  private parse(name: string, generation: number, spec: unknown): Parsed<M> {
    try {
      const model = this.handler.parse(name, spec);
      return { generation, model, claims: this.handler.claims(model), rejection: undefined };
    } catch (err: unknown) {
      const refused = { generation, model: undefined, claims: [] };
      if (err instanceof NotSupportedOverXdsError)
        return { ...refused, rejection: { reason: 'NotSupportedOverXds', message: err.message } };
      if (err instanceof ConfigError)
        return { ...refused, rejection: { reason: 'Invalid', message: err.message } };
      throw err;
    }
  }

  /** Secrets may change between reconciles: an encoding that read one is never reused. */
  private encode(resource: Resource, good: Good<M>, secrets: SecretLookup): Encoded {
    const { uid } = resource.metadata;
    const kept = this.encoded.get(uid);
    if (kept?.generation === good.generation) return { value: kept.value };
    const encoded = this.handler.encode(resource, good.model, secrets);
    if (encoded.refs === undefined)
      this.encoded.set(uid, { generation: good.generation, value: encoded.value });
    else this.encoded.delete(uid);
    return encoded;
  }
}
