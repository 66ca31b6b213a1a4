import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createOperatorMetrics, typeLabel } from './metrics.js';

describe('operator metrics', () => {
  it('has every kind at 0 from the start, so increase() sees the first NACK or rejection', async () => {
    const registry = new Registry();
    createOperatorMetrics(registry, () => 0);
    const lines = (await registry.metrics()).split('\n');
    for (const type of ['RateLimitConfig', 'ApiRoute', 'InboxEndpoint']) {
      for (const name of ['pushes', 'acks', 'nacks'])
        expect(lines).toContain(`portcullis_operator_xds_${name}_total{type="${type}"} 0`);
      for (const result of ['accepted', 'rejected'])
        expect(lines).toContain(`portcullis_operator_reconciles_total{kind="${type}",result="${result}"} 0`);
    }
  });

  it('labels a type URL by its last segment, the kind', () => {
    expect(typeLabel('type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig')).toBe(
      'RateLimitConfig',
    );
  });
});
