import { describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../store/types.js';
import { createEndpointCache } from './endpoint-cache.js';

describe('createEndpointCache', () => {
  it('asks the store once a second per endpoint, and never remembers a miss', async () => {
    let t = 0;
    const asked: string[] = [];
    const known = new Set(['a']);
    const cache = createEndpointCache(
      {
        getEndpoint: (id) => {
          asked.push(id);
          return Promise.resolve(known.has(id) ? ({ id } as unknown as EndpointRecord) : undefined);
        },
      },
      () => t,
    );
    await cache.get('a');
    await cache.get('a');
    await cache.get('b');
    await cache.get('b');
    expect(asked).toEqual(['a', 'b', 'b']);
    t = 1001;
    await cache.get('a');
    expect(asked).toEqual(['a', 'b', 'b', 'a']);
  });
});
