import { describe, expect, it } from 'vitest';
import { YAML_ONLY_KEYS, findYamlOnlyKeys } from './xds-fields.js';

describe('findYamlOnlyKeys', () => {
  it('lists the path of every key the xDS message cannot carry', () => {
    expect(
      findYamlOnlyKeys({
        domain: 'd',
        descriptors: [
          { key: 'a', rate_limit: { unit: 'second', requests_per_unit: 1, algorithm: 'sliding_window' } },
          {
            key: 'b',
            descriptors: [{ key: 'c', rate_limits: [{ unit: 'second', requests_per_unit: 1, burst: 2 }] }],
          },
          { key: 'd', value_to_metric: true, share_threshold: null, metadata: { burst: 1 } },
        ],
      }),
    ).toEqual([
      'descriptors[0].rate_limit.algorithm',
      'descriptors[1].descriptors[0].rate_limits',
      'descriptors[1].descriptors[0].rate_limits[0].burst',
      'descriptors[2].value_to_metric',
    ]);
  });

  it('holds the five keys both branches agreed on', () => {
    expect([...YAML_ONLY_KEYS].sort()).toEqual([
      'algorithm',
      'burst',
      'rate_limits',
      'share_threshold',
      'value_to_metric',
    ]);
  });
});
