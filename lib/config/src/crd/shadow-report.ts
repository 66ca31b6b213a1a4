import { bool, int, list, obj, str, type Schema } from './schema.js';

/** One rule's hits over the window, as `status.shadowReport.rules[]` shows them. */
export interface RuleReport {
  /** The rule's statistics key: `key_value.key2…` from the domain, the `descriptor` label of the metrics. */
  key: string;
  /** The rule's `shadow_mode`; absent for keys made from request values (`detailed_metric`, `value_to_metric`). */
  shadowMode?: boolean;
  totalHits: number;
  overLimit: number;
  nearLimit: number;
  withinLimit: number;
  /** Hits over the limit let through because the rule is in shadow mode. */
  shadowModeHits: number;
}

/** `status.shadowReport` of a RateLimitConfig; `shadowReportSchema` is its schema. */
export interface ShadowReport {
  /** The domain counted: the configuration's when the report was written. */
  domain: string;
  windowSeconds: number;
  /** Where the counts start: the window's start, or the first scrape when the window is not filled yet. */
  from: string;
  collectedAt: string;
  /**
   * Seconds of the window whose hits no leader counted: between a previous leader's last report and this
   * leader's first scrape. Absent when none.
   */
  uncountedSeconds?: number;
  /** Shadow-mode hits of every rule of the domain, the truncated ones included. */
  shadowModeHits: number;
  /** Most hits first, at most `maxRules`. */
  rules: RuleReport[];
  /** Rules left out past `maxRules`. */
  truncated: number;
}

const count = (description: string): Schema => int({ format: 'int64', minimum: 0, description });

/**
 * `status.shadowReport` of a RateLimitConfig, written by the operator's shadow-mode report
 * (operator/src/shadow-report): each rule's hits over a sliding window, from the ratelimit instances' metrics.
 */
export const shadowReportSchema: Schema = obj(
  {
    domain: str({
      description:
        "The domain counted: the configuration's when the report was written (a new leader carries a report forward only for the same domain).",
    }),
    windowSeconds: int({ minimum: 1, description: 'The sliding window the counts cover.' }),
    from: str({
      format: 'date-time',
      description:
        "Where the counts start: the window's start, or the first scrape when it is not filled yet.",
    }),
    collectedAt: str({
      format: 'date-time',
      description: 'When the instances were scraped for this report.',
    }),
    uncountedSeconds: count(
      "Seconds of the window whose hits no leader counted: between a previous leader's last report and this leader's first scrape. Absent when none.",
    ),
    shadowModeHits: count('Shadow-mode hits of every rule, the truncated ones included.'),
    rules: list(
      obj(
        {
          key: str({
            maxLength: 4096,
            description: "The rule's statistics key (key_value.key2…), the descriptor label of the metrics.",
          }),
          shadowMode: bool({
            description: "The rule's shadow_mode; absent for keys made from request values.",
          }),
          totalHits: count('Hits counted by the rule.'),
          overLimit: count('Hits over the limit (in shadow mode too).'),
          nearLimit: count('Hits above NEAR_LIMIT_RATIO of the limit.'),
          withinLimit: count('Hits within the limit.'),
          shadowModeHits: count('Hits over the limit let through because the rule is in shadow mode.'),
        },
        { required: ['key', 'totalHits', 'overLimit', 'nearLimit', 'withinLimit', 'shadowModeHits'] },
      ),
      { maxItems: 200, 'x-kubernetes-list-type': 'atomic', description: 'Most hits first.' },
    ),
    truncated: count('Rules left out past OPERATOR_SHADOW_REPORT_MAX_RULES.'),
  },
  { description: "Each rule's hits over a sliding window, from the ratelimit instances' metrics." },
);
