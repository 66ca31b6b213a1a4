import { describe, expect, it } from 'vitest';
import { endpointIdFromPath, endpointIdFromText, shareTokenFromHash } from './routes.js';

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

  it('finds the endpoint id in a pasted id, receive URL, API address or inspector address', () => {
    const id = 'LSqj3wmDZsG77hRRZ64lZQ';
    expect(endpointIdFromText(` ${id}\n`)).toBe(id);
    expect(endpointIdFromText(`http://127.0.0.1:8089/api/hook/${id}/orders?x=1`)).toBe(id);
    expect(endpointIdFromText(`https://inbox.example.com/api/endpoints/${id}`)).toBe(id);
    expect(endpointIdFromText(`http://localhost:8089/inspect/${id}#share=x`)).toBe(id);
    expect(endpointIdFromText('https://example.com/elsewhere')).toBeUndefined();
    expect(endpointIdFromText('')).toBeUndefined();
  });
});
