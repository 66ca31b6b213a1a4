import { ConfigError, parseRateLimitConfig, type RateLimitConfig } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import { PROTO_FILES, createMessageCodec, fromStruct } from '@portcullis/protos';
import {
  createXdsSubscription,
  type ClientTlsOptions,
  type ReceivedResource,
  type XdsSubscription,
} from '@portcullis/xds';
import type { Stats } from '../stats/stats.js';
import { buildRuleSet, type RuleSet } from './rule-set.js';

export const RATE_LIMIT_CONFIG_TYPE = 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig';

const codec = createMessageCodec(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);

export interface XdsSourceOptions {
  serverUrl: string;
  nodeId: string;
  nodeMetadata: Record<string, string>;
  retryIntervalMs: number;
  additionalHeaders: Record<string, string>;
  tls: ClientTlsOptions | undefined;
  mergeDomains: boolean;
  stats: Stats;
  log: Logger;
  onRules: (rules: RuleSet) => void;
}

interface PolicyMessage {
  /** The enum's name; a number when the sender used a value our proto has no name for. */
  unit?: string | number;
  requestsPerUnit?: number;
  unlimited?: boolean;
  name?: string;
  replaces?: Array<{ name?: string }>;
}
interface DescriptorMessage {
  key?: string;
  value?: string;
  rateLimit?: PolicyMessage;
  descriptors?: DescriptorMessage[];
  shadowMode?: boolean;
  detailedMetric?: boolean;
  quotaMode?: boolean;
  metadata?: unknown;
}
interface ConfigMessage {
  name?: string;
  domain?: string;
  descriptors?: DescriptorMessage[];
}

/**
 * Rules from an xDS management server (`CONFIG_TYPE=GRPC_XDS_SOTW`), as upstream ratelimit takes them:
 * each response is the whole configuration, each `RateLimitConfig` resource one "file" named by its `name`.
 * The shared subscription the gateway and the inbox use: a response that does not decode or validate is
 * NACKed with the problems (and counted in `config_load_error`) and the last good rules stay.
 */
export class XdsConfigSource {
  private readonly subscription: XdsSubscription;
  /**
   * The rule set in force and each of its resources' configuration by the resource's bytes: a state-of-
   * the-world response resends every resource, and those whose bytes did not change are neither decoded
   * nor validated again, and their domains keep their trees.
   */
  private inForce: { rules: RuleSet; byBytes: ReadonlyMap<string, RateLimitConfig> } | undefined;

  constructor(private readonly o: XdsSourceOptions) {
    this.subscription = createXdsSubscription({
      serverUrl: o.serverUrl,
      nodeId: o.nodeId,
      nodeMetadata: o.nodeMetadata,
      typeUrl: RATE_LIMIT_CONFIG_TYPE,
      retryIntervalMs: o.retryIntervalMs,
      additionalHeaders: o.additionalHeaders,
      ...(o.tls ? { tls: o.tls } : {}),
      log: o.log,
      decode: (resources) => this.decode(resources),
      apply: ({ rules, byBytes }) => {
        this.inForce = { rules, byBytes };
        o.onRules(rules);
        o.stats.counter('config_load_success').value++;
      },
      describe: ({ rules }) => ({ domains: rules.domains.size }),
    });
  }

  start(): void {
    this.subscription.start();
  }

  /** Resolves once a first configuration has been accepted. */
  firstUpdate(): Promise<void> {
    return this.subscription.firstUpdate();
  }

  close(): Promise<void> {
    return this.subscription.close();
  }

  private decode(resources: readonly ReceivedResource[]): {
    rules: RuleSet;
    byBytes: ReadonlyMap<string, RateLimitConfig>;
  } {
    const { stats } = this.o;
    try {
      const problems: string[] = [];
      const configs: RateLimitConfig[] = [];
      const byBytes = new Map<string, RateLimitConfig>();
      resources.forEach((r, i) => {
        try {
          if (r.typeUrl !== RATE_LIMIT_CONFIG_TYPE)
            throw new ConfigError([`resources[${i}]: unexpected type ${r.typeUrl}`]);
          const bytes = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength).toString(
            'latin1',
          );
          let config = this.inForce?.byBytes.get(bytes);
          if (!config) {
            const message = codec.decode(r.value) as ConfigMessage;
            config = parseRateLimitConfig(message.name || `resources[${i}]`, toYamlShape(message));
            // an unnamed resource is named for its place in this response only
            if (message.name) byBytes.set(bytes, config);
          } else byBytes.set(bytes, config);
          configs.push(config);
        } catch (err: unknown) {
          if (err instanceof ConfigError) problems.push(...err.problems);
          else problems.push(`resources[${i}]: cannot decode: ${(err as Error).message}`);
        }
      });
      if (problems.length > 0) throw new ConfigError(problems);
      // by name, as the file source loads files by name: a control plane may send its resources in any
      // order (go-control-plane keeps a snapshot's in a map), and which one a NACK names, or which one a
      // merge of domains starts from, must not change from one push to the next
      configs.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
      const rules = buildRuleSet(configs, {
        mergeDomains: this.o.mergeDomains,
        stats,
        ...(this.inForce ? { previous: this.inForce.rules } : {}),
      });
      return { rules, byBytes };
    } catch (err: unknown) {
      stats.counter('config_load_error').value++;
      throw err;
    }
  }
}

/** Upstream's proto fields under their YAML names, so the one parser validates both. */
function toYamlShape(m: ConfigMessage): unknown {
  const descriptor = (d: DescriptorMessage): Record<string, unknown> => {
    const p = d.rateLimit;
    return {
      key: d.key,
      value: d.value,
      ...(p
        ? {
            rate_limit: {
              // as upstream, an unnamed number is a unit the parser reports by its number: "invalid rate limit unit '9'"
              unit: p.unit && p.unit !== 'UNKNOWN' ? String(p.unit).toLowerCase() : undefined,
              requests_per_unit: p.requestsPerUnit,
              unlimited: p.unlimited,
              name: p.name,
              replaces: p.replaces?.map((r) => ({ name: r.name })),
            },
          }
        : {}),
      descriptors: d.descriptors?.map(descriptor),
      shadow_mode: d.shadowMode,
      detailed_metric: d.detailedMetric,
      quota_mode: d.quotaMode,
      ...(d.metadata ? { metadata: fromStruct(d.metadata) } : {}),
    };
  };
  return { domain: m.domain, descriptors: m.descriptors?.map(descriptor) };
}
