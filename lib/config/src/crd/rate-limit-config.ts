import { RATE_LIMIT_UNITS } from '../rate-limit-types.js';
import { UINT32_MAX } from '../reader.js';
import type { CrdSource } from './crd-source.js';
import { bool, int, list, obj, rule, str, unitSpellings, type Schema } from './schema.js';
import { shadowReportSchema } from './shadow-report.js';
import { statusSchema } from './status.js';

/** Levels of nested `descriptors` the schema describes; deeper trees are refused by the API server. */
const MAX_DESCRIPTOR_DEPTH = 6;

// Listed so the API server keeps them (it prunes unknown fields) and the operator can refuse the resource
// by name: upstream's xDS message has no field for them.
const YAML_ONLY = 'YAML files only: a resource setting it is refused (NotSupportedOverXds).';

/** Names of limits (`name`, `replaces[].name`): bounded, so the CEL comparison of them has a bounded cost. */
const LIMIT_NAME_MAX = 256;

/**
 * A rate-limit policy. The API server costs each CEL rule at the largest number of times it can run, the
 * product of the `maxItems` of every list above it, and refuses a CRD over its budget (10^7 per rule, 10^8
 * in all). So the rules go on the policy of top-level descriptors only (at most 1024 evaluations); deeper
 * ones, and `rate_limits` entries, are checked by the operator, whose status names the problem the same way.
 */
function policy(withRules: boolean): Schema {
  return obj(
    {
      unit: str({
        enum: unitSpellings(RATE_LIMIT_UNITS),
        maxLength: 8,
        description: 'Window of the limit; any case, as upstream accepts it.',
      }),
      requests_per_unit: int({ minimum: 0, maximum: UINT32_MAX, description: '0 blocks every request.' }),
      unlimited: bool({ description: 'Never limited; no unit or count is given.' }),
      name: str({ maxLength: LIMIT_NAME_MAX, description: 'Lets another rule replace this limit.' }),
      // 16, not more: the rule comparing these names costs 1024 descriptors × maxItems name comparisons,
      // and at 64 it used 72% of kube-apiserver 1.36's budget (test/crds.test.ts keeps a 4× margin)
      replaces: list(
        obj({ name: str({ minLength: 1, maxLength: LIMIT_NAME_MAX }) }, { required: ['name'] }),
        {
          maxItems: 16,
        },
      ),
      algorithm: str({
        enum: ['fixed_window', 'sliding_window'],
        maxLength: 16,
        description: `${YAML_ONLY} fixed_window (default) or sliding_window.`,
      }),
      burst: int({ minimum: 1, maximum: UINT32_MAX, description: `${YAML_ONLY} Token-bucket capacity.` }),
    },
    withRules
      ? {
          'x-kubernetes-validations': [
            rule('!(has(self.unlimited) && self.unlimited) || !has(self.unit)', 'unlimited excludes unit'),
            rule(
              '(has(self.unlimited) && self.unlimited) || has(self.unit)',
              'unit is required unless unlimited is true',
            ),
            rule(
              '!has(self.name) || !has(self.replaces) || self.replaces.all(r, r.name != self.name)',
              'replaces should not contain name of same descriptor',
            ),
          ],
        }
      : {},
  );
}

function descriptor(level: number): Schema {
  return obj(
    {
      key: str({ minLength: 1 }),
      value: str(),
      rate_limit: policy(level === 1),
      rate_limits: list(policy(false), {
        maxItems: 16,
        'x-kubernetes-list-type': 'atomic',
        description: `${YAML_ONLY} Several limits on one descriptor.`,
      }),
      shadow_mode: bool(),
      detailed_metric: bool(),
      quota_mode: bool({
        description: 'Soft limit: a request is refused only when all its quota descriptors are over.',
      }),
      metadata: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        description:
          'Free-form; returned in the dynamic metadata of answers while this limit is not exceeded.',
      },
      // Listed so the API server keeps them for the operator to refuse: upstream's RateLimitConfig proto,
      // which carries rules over xDS, has no such fields.
      value_to_metric: bool({
        description: 'YAML files only: not supported over xDS, the operator refuses it.',
      }),
      share_threshold: bool({
        description: 'YAML files only: not supported over xDS, the operator refuses it.',
      }),
      // the deepest level declares an empty `descriptors`: left out, a deeper tree would be pruned there
      // (cut short, its limits silently lost) unless the client asked for strict field validation
      descriptors:
        level < MAX_DESCRIPTOR_DEPTH
          ? list(descriptor(level + 1), { maxItems: 256, 'x-kubernetes-list-type': 'atomic' })
          : list(
              { type: 'object' },
              {
                maxItems: 0,
                description: `Descriptors nest at most ${MAX_DESCRIPTOR_DEPTH} levels deep.`,
              },
            ),
    },
    { required: ['key'] },
  );
}

/** The RateLimitConfig kind; its `spec` is upstream's YAML format, validated by `parseRateLimitConfig`. */
export const rateLimitConfig: CrdSource = {
  kind: 'RateLimitConfig',
  plural: 'ratelimitconfigs',
  singular: 'ratelimitconfig',
  shortNames: ['rlc'],
  description:
    "Rate-limit rules of one domain, in Envoy ratelimit's YAML format one to one. Served to ratelimit instances over xDS.",
  spec: obj(
    {
      domain: str({ minLength: 1, description: 'Unique across all RateLimitConfigs; the older one wins.' }),
      descriptors: list(descriptor(1), { maxItems: 1024, 'x-kubernetes-list-type': 'atomic' }),
    },
    { required: ['domain'] },
  ),
  status: statusSchema({ shadowReport: shadowReportSchema }),
  printerColumns: [
    { name: 'Domain', type: 'string', jsonPath: '.spec.domain' },
    {
      name: 'Shadow-Hits',
      type: 'integer',
      jsonPath: '.status.shadowReport.shadowModeHits',
      description: 'Hits over a limit let through by shadow mode in the last window (status.shadowReport).',
      priority: 1,
    },
  ],
};
