import { describe, expect, it } from 'vitest';
import { endpointIdFromPath, shareTokenFromHash } from './routes.js';

describe('inspector addresses', () => {
  const token = 'Ab0_-'.repeat(8) + 'xyz';

  it('reads a share token from the fragment only when it is one', () => {
    expect(shareTokenFromHash(`#share=${token}`)).toBe(token);
    for (const hash of ['', '#', `#share=${token}x`, `#share=${token.slice(1)}`, `#other=${token}`]) {
      expect(shareTokenFromHash(hash)).toBeUndefined();
    }
  });

  it('names the endpoint of an /inspect address, and none of /admin', () => {
    expect(endpointIdFromPath('/inspect/AEAF2WN9HNPzQN3hQfxbFw')).toBe('AEAF2WN9HNPzQN3hQfxbFw');
    expect(endpointIdFromPath('/admin')).toBeUndefined();
  });
});
