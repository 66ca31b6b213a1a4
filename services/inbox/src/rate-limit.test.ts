import { describe, expect, it } from 'vitest';
import { toEntries, toLimitedHeaders } from './rate-limit.js';

describe('rate-limit descriptors and headers', () => {
  it('names each action with its key', () => {
    expect(toEntries({ action: 'create_endpoint', remoteAddress: '10.0.0.1' })).toEqual([
      { key: 'action', value: 'create_endpoint' },
      { key: 'remote_address', value: '10.0.0.1' },
    ]);
    expect(toEntries({ action: 'capture', endpointId: 'abc' })).toEqual([
      { key: 'action', value: 'capture' },
      { key: 'endpoint', value: 'abc' },
    ]);
  });

  it('adds Retry-After from RateLimit-Reset, whatever its case', () => {
    expect(
      toLimitedHeaders([
        { key: 'RateLimit-Limit', value: '3' },
        { key: 'ratelimit-reset', value: '42' },
      ]),
    ).toEqual({ 'RateLimit-Limit': '3', 'ratelimit-reset': '42', 'retry-after': '42' });
    expect(toLimitedHeaders([])).toEqual({});
  });
});
