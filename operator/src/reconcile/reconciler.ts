import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import type { Kind } from '@portcullis/config';
import type { ResourceStore } from '../store.js';
import { GATEWAY_RATE_LIMITS_NAME, gatewayRateLimitConfig } from './gateway-rate-limits.js';
import { HANDLERS, toRateLimitConfigMessage } from './translation.js';
import { KindReconciler } from './reconcile-kind.js';
import type { KindResult, SecretLookup } from './types.js';

const rateLimitCodec = createMessageCodec(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);

/**
 * Reconciles the three kinds from the store: a pure function of the store plus each kind's last good
 * state. ApiRoutes go first: their rate limits become the rules of the gateway's domain, which no
 * RateLimitConfig may then claim.
 */
export class Reconciler {
  private readonly rateLimitConfigs = new KindReconciler(HANDLERS.RateLimitConfig);
  private readonly apiRoutes = new KindReconciler(HANDLERS.ApiRoute);
  private readonly inboxEndpoints = new KindReconciler(HANDLERS.InboxEndpoint);

  constructor(private readonly o: { gatewayDomain: string }) {}

  /** `secrets`: where the Secrets that resources name are read (the store's own in directory mode). */
  reconcile(store: ResourceStore, secrets: SecretLookup = store): Record<Kind, KindResult> {
    const apiRoutes = this.apiRoutes.reconcile(store.list('ApiRoute'), secrets);
    const reserved = new Map([[this.o.gatewayDomain, "the gateway's ApiRoute rate limits"]]);
    const rateLimitConfigs = this.rateLimitConfigs.reconcile(
      store.list('RateLimitConfig'),
      secrets,
      reserved,
    );
    const generated = gatewayRateLimitConfig(this.o.gatewayDomain, apiRoutes.models);
    if (generated.descriptors.length > 0) {
      rateLimitConfigs.resources.push({
        name: GATEWAY_RATE_LIMITS_NAME,
        value: rateLimitCodec.encode(toRateLimitConfigMessage(GATEWAY_RATE_LIMITS_NAME, generated)),
      });
    }
    return {
      RateLimitConfig: rateLimitConfigs,
      ApiRoute: apiRoutes,
      InboxEndpoint: this.inboxEndpoints.reconcile(store.list('InboxEndpoint'), secrets),
    };
  }
}
