import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseSignatureSettings, signatureSecretProblem } from './inbox-signature.js';

describe('parseSignatureSettings', () => {
  it('fills defaults', () => {
    expect(parseSignatureSettings('body', { provider: 'stripe', secret: 'whsec_x' })).toEqual({
      preset: { provider: 'stripe', toleranceSeconds: 300 },
      secret: 'whsec_x',
    });
    expect(parseSignatureSettings('body', { provider: 'hmac', secret: 's', header: 'X-Sig' })).toEqual({
      preset: { provider: 'hmac', header: 'X-Sig', algorithm: 'sha256', encoding: 'hex', prefix: '' },
      secret: 's',
    });
    expect(parseSignatureSettings('body', { provider: 'github', secret: 's' }).preset).toEqual({
      provider: 'github',
    });
  });

  it('takes a tolerance and the generic settings', () => {
    expect(
      parseSignatureSettings('body', { provider: 'slack', secret: 's', toleranceSeconds: 60 }).preset,
    ).toEqual({ provider: 'slack', toleranceSeconds: 60 });
    const hmac = { provider: 'hmac', secret: 's', header: 'X-Sig', algorithm: 'sha512', encoding: 'base64' };
    expect(parseSignatureSettings('body', { ...hmac, prefix: 'sha512=' }).preset).toEqual({
      provider: 'hmac',
      header: 'X-Sig',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'sha512=',
    });
  });

  it('names every bad field', () => {
    expect(() =>
      parseSignatureSettings('body', { provider: 'paypal', secret: '', toleranceSeconds: 5, colour: 1 }),
    ).toThrow(
      new ConfigError([
        "body: colour: unknown key 'colour'",
        'body: provider: expected one of github, stripe, slack, shopify, standard-webhooks, hmac',
        'body: toleranceSeconds: only for stripe, slack and standard-webhooks',
        'body: secret: expected 1 to 1024 characters',
      ]),
    );
    expect(() =>
      parseSignatureSettings('body', { provider: 'stripe', secret: 's', toleranceSeconds: 0, header: 'X' }),
    ).toThrow(
      new ConfigError([
        'body: toleranceSeconds: expected 1 to 86400 seconds',
        'body: header: only for provider hmac',
      ]),
    );
    expect(() =>
      parseSignatureSettings('body', {
        provider: 'hmac',
        secret: 's',
        header: 'bad header',
        algorithm: 'md5',
        encoding: 'base32',
        prefix: 'é',
      }),
    ).toThrow(
      new ConfigError([
        'body: header: expected a header name (1 to 100 characters)',
        'body: algorithm: expected one of sha1, sha256, sha512',
        'body: encoding: expected one of hex, base64',
        'body: prefix: at most 64 printable ASCII characters',
      ]),
    );
    expect(() =>
      parseSignatureSettings('body', { provider: 'standard-webhooks', secret: 'whsec_not base64!' }),
    ).toThrow(new ConfigError(['body: secret: expected whsec_ followed by base64, as the sender shows it']));
    expect(() => parseSignatureSettings('body', [])).toThrow(
      new ConfigError([
        'body: expected a mapping, got a list',
        'body: provider: expected one of github, stripe, slack, shopify, standard-webhooks, hmac',
        'body: secret: expected 1 to 1024 characters',
      ]),
    );
  });

  it("checks a secret read elsewhere (an InboxEndpoint's Secret) with the same rules", () => {
    expect(signatureSecretProblem('github', 's')).toBeUndefined();
    expect(signatureSecretProblem('github', '')).toBe('expected 1 to 1024 characters');
    expect(signatureSecretProblem('github', 'x'.repeat(1025))).toBe('expected 1 to 1024 characters');
    expect(
      signatureSecretProblem('standard-webhooks', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'),
    ).toBeUndefined();
    expect(signatureSecretProblem('standard-webhooks', 'whsec_not base64')).toBe(
      'expected whsec_ followed by base64, as the sender shows it',
    );
  });
});
