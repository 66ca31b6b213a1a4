import { ENDPOINT_ID } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { createEndpointId, createEndpointToken } from './endpoint-credentials.js';

describe('endpoint credentials', () => {
  it('makes ids lib/config accepts, with 128 bits, and tokens with 256', () => {
    const id = createEndpointId();
    expect(id).toMatch(ENDPOINT_ID);
    expect(Buffer.from(id, 'base64url')).toHaveLength(16);
    expect(Buffer.from(createEndpointToken(), 'base64url')).toHaveLength(32);
    expect(createEndpointId()).not.toBe(id);
  });

  it('never starts an id or a token with "-", which a command line would take for an option', () => {
    for (let i = 0; i < 2000; i++) {
      expect(createEndpointId().startsWith('-')).toBe(false);
      expect(createEndpointToken().startsWith('-')).toBe(false);
    }
  });
});
