import { describe, expect, it } from 'vitest';
import { parseIdpIssuers } from './idp-issuers.js';

const NAME = 'GATEWAY_JWT_ISSUERS';
const parse = (value: unknown) => parseIdpIssuers(NAME, JSON.stringify(value), 'portcullis-gateway');

describe('GATEWAY_JWT_ISSUERS', () => {
  it('reads issuers with their defaults: RS256 only, preferred_username, an audience as a list', () => {
    expect(
      parse([
        { issuer: 'https://id.example', jwksUrl: 'https://id.example/jwks', audience: 'api' },
        {
          issuer: 'https://other.example',
          jwksUrl: 'http://keys.local:8080/certs',
          audience: ['a', 'b'],
          algorithms: ['ES256', 'EdDSA', 'ES256'],
          usernameClaim: 'email',
        },
      ]),
    ).toEqual({
      problems: [],
      issuers: [
        {
          issuer: 'https://id.example',
          jwksUrl: 'https://id.example/jwks',
          audiences: ['api'],
          algorithms: ['RS256'],
          usernameClaim: 'preferred_username',
        },
        {
          issuer: 'https://other.example',
          jwksUrl: 'http://keys.local:8080/certs',
          audiences: ['a', 'b'],
          algorithms: ['ES256', 'EdDSA'],
          usernameClaim: 'email',
        },
      ],
    });
  });

  it('names every problem with its field, and keeps no issuer when there is one', () => {
    const { issuers, problems } = parse([
      { issuer: '', jwksUrl: 'ftp://x', audience: [], algorithms: ['HS256'], usernameClaim: 7, aud: 'x' },
      'https://id.example',
      { issuer: 'portcullis-gateway', jwksUrl: 'https://a/jwks', audience: 'api' },
      { issuer: 'https://b', jwksUrl: 'https://user:pw@b/jwks', audience: 'api', algorithms: [] },
      { issuer: 'https://c', jwksUrl: 'https://c/jwks', audience: 'api' },
      { issuer: 'https://c', jwksUrl: 'https://c/jwks', audience: 'api' },
    ]);
    expect(issuers).toEqual([]);
    expect(problems).toEqual([
      `${NAME}[0].aud: unknown field (expected issuer, jwksUrl, audience, algorithms, usernameClaim)`,
      `${NAME}[0].issuer: expected a non-empty string`,
      `${NAME}[0].jwksUrl: expected an http or https URL`,
      `${NAME}[0].audience: expected a non-empty string or a non-empty list of them`,
      `${NAME}[0].algorithms: expected a non-empty list of RS256, ES256, EdDSA`,
      `${NAME}[0].usernameClaim: expected a non-empty string`,
      `${NAME}[1]: expected an object`,
      `${NAME}[2].issuer: "portcullis-gateway" is the gateway's own (GATEWAY_JWT_ISSUER)`,
      `${NAME}[3].jwksUrl: expected an http or https URL`,
      `${NAME}[3].algorithms: expected a non-empty list of RS256, ES256, EdDSA`,
      `${NAME}[5].issuer: "https://c" is listed twice`,
    ]);
  });

  it('refuses text that is not a JSON array, keeping no issuer', () => {
    expect(parseIdpIssuers(NAME, '{"issuer": "x"}', 'p')).toEqual({
      issuers: [],
      problems: [`${NAME}: expected a JSON array of issuers`],
    });
    const notJson = parseIdpIssuers(NAME, '[{', 'p');
    expect(notJson.issuers).toEqual([]);
    expect(notJson.problems[0]).toMatch(/^GATEWAY_JWT_ISSUERS: not JSON \(/);
  });

  it('refuses null, a blank issuer, a list mixing good and bad audiences or algorithms, and a jwksUrl with credentials or no scheme', () => {
    const good = { issuer: 'https://id.example', jwksUrl: 'https://id.example/jwks', audience: 'api' };
    expect(parse([null]).problems).toEqual([`${NAME}[0]: expected an object`]);
    expect(parse([{ ...good, issuer: '  ' }]).problems).toEqual([
      `${NAME}[0].issuer: expected a non-empty string`,
    ]);
    expect(parse([{ ...good, audience: ['api', ''] }]).problems).toEqual([
      `${NAME}[0].audience: expected a non-empty string or a non-empty list of them`,
    ]);
    expect(parse([{ ...good, algorithms: ['RS256', 'HS256'] }]).problems).toEqual([
      `${NAME}[0].algorithms: expected a non-empty list of RS256, ES256, EdDSA`,
    ]);
    for (const jwksUrl of [
      'https://user@id.example/jwks',
      'https://:pw@id.example/jwks',
      'id.example/jwks',
    ]) {
      expect(parse([{ ...good, jwksUrl }]).problems).toEqual([
        `${NAME}[0].jwksUrl: expected an http or https URL`,
      ]);
    }
  });

  it('takes at most 32 issuers', () => {
    const issuers = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        issuer: `https://id${String(i)}.example`,
        jwksUrl: `https://id${String(i)}.example/jwks`,
        audience: 'api',
      }));
    expect(parse(issuers(32)).issuers).toHaveLength(32);
    expect(parse(issuers(33))).toEqual({
      issuers: [],
      problems: [`${NAME}: at most 32 issuers`],
    });
  });
});
