import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseInboxEndpoint } from './inbox-endpoint.js';

const ID = 'Qm9vdHN0cmFwcGVkLWlkLTEyMw';

describe('parseInboxEndpoint', () => {
  it('fills defaults', () => {
    expect(
      parseInboxEndpoint('ns/hook', { endpointId: ID, forward: [{ url: 'https://example.test/hooks' }] }),
    ).toEqual({
      endpointId: ID,
      displayName: '',
      forward: [
        {
          url: 'https://example.test/hooks',
          pathMode: 'append',
          enabled: true,
          timeoutSeconds: 10,
          maxAttempts: 8,
          initialDelaySeconds: 30,
          maxDelaySeconds: 3600,
          maxConcurrent: 32,
        },
      ],
      retention: { maxRequests: 500, maxAgeHours: 168, maxBytes: 52_428_800 },
    });
  });

  it('lists every problem', () => {
    expect(() =>
      parseInboxEndpoint('ns/hook', {
        endpointId: 'short',
        forward: [{ url: 'ftp://x', pathMode: 'prefix' }],
        retention: { maxRequests: 0, colour: 'red' },
      }),
    ).toThrow(
      new ConfigError([
        'ns/hook: endpointId: expected 22 to 64 URL-safe characters (A-Z, a-z, 0-9, _ and -)',
        'ns/hook: forward[0].url: expected an absolute http or https URL',
        'ns/hook: forward[0].pathMode: expected append or exact',
        "ns/hook: retention.colour: unknown key 'colour'",
        'ns/hook: retention.maxRequests: must be at least 1',
      ]),
    );
  });

  it("bounds a target's maxConcurrent to 1…1024", () => {
    const spec = (maxConcurrent: unknown) => ({
      endpointId: ID,
      forward: [{ url: 'https://example.test/hooks', maxConcurrent }],
    });
    expect(parseInboxEndpoint('ns/hook', spec(4)).forward[0]?.maxConcurrent).toBe(4);
    for (const bad of [0, 1025]) {
      expect(() => parseInboxEndpoint('ns/hook', spec(bad))).toThrow(
        new ConfigError(['ns/hook: forward[0].maxConcurrent: expected 1 to 1024']),
      );
    }
  });

  it('takes a signature preset whose secret is a key of a Secret, never the secret itself', () => {
    const signature = {
      provider: 'stripe',
      toleranceSeconds: 60,
      secretRef: { name: 'stripe', key: 'whsec' },
    };
    expect(parseInboxEndpoint('ns/hook', { endpointId: ID, signature }).signature).toEqual({
      preset: { provider: 'stripe', toleranceSeconds: 60 },
      secretRef: { name: 'stripe', key: 'whsec' },
    });
    expect(() =>
      parseInboxEndpoint('ns/hook', {
        endpointId: ID,
        signature: { provider: 'github', secret: 'inline', header: 'X', secretRef: { name: 'Bad_Name' } },
      }),
    ).toThrow(
      new ConfigError([
        "ns/hook: signature.secret: unknown key 'secret'",
        'ns/hook: signature.header: only for provider hmac',
        "ns/hook: signature.secretRef.name: expected the name of a Secret in the resource's namespace",
        'ns/hook: signature.secretRef.key: expected a key of the Secret (A-Z, a-z, 0-9, -, _ and .)',
      ]),
    );
  });
});
