/** The algorithms an identity provider's tokens may use; never a shared-secret one, so no HS/RS confusion. */
export const IDP_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type IdpAlgorithm = (typeof IDP_ALGORITHMS)[number];

/** One identity provider whose tokens the jwt mode accepts. */
export interface IdpIssuer {
  /** The token's `iss`, compared exactly. */
  issuer: string;
  /** Where its public keys are published (the OIDC discovery document's `jwks_uri`). */
  jwksUrl: string;
  /** A token's `aud` must name at least one. */
  audiences: string[];
  algorithms: IdpAlgorithm[];
  /** The claim that names the caller (`X-User-Name`, the handler's `account.username`); `sub` when absent. */
  usernameClaim: string;
}

const FIELDS = ['issuer', 'jwksUrl', 'audience', 'algorithms', 'usernameClaim'];
const MAX_ISSUERS = 32;

/**
 * `GATEWAY_JWT_ISSUERS`: a JSON array of `{issuer, jwksUrl, audience, algorithms?, usernameClaim?}`
 * (`audience` a string or a list; `algorithms` defaults to `["RS256"]`, `usernameClaim` to
 * `preferred_username`). Every problem is returned, each naming the variable and the field:
 * `GATEWAY_JWT_ISSUERS[1].jwksUrl: expected an http or https URL`. `localIssuer` (our own tokens' `iss`)
 * cannot be one of them: a token is told apart by its issuer.
 */
export function parseIdpIssuers(
  name: string,
  text: string,
  localIssuer: string,
): { issuers: IdpIssuer[]; problems: string[] } {
  const problems: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err: unknown) {
    return { issuers: [], problems: [`${name}: not JSON (${(err as Error).message})`] };
  }
  if (!Array.isArray(parsed)) return { issuers: [], problems: [`${name}: expected a JSON array of issuers`] };
  if (parsed.length > MAX_ISSUERS) problems.push(`${name}: at most ${MAX_ISSUERS} issuers`);
  const issuers: IdpIssuer[] = [];
  const seen = new Set<string>();
  parsed.forEach((item: unknown, i) => {
    const at = `${name}[${i}]`;
    const found = readIssuer(at, item, problems);
    if (!found) return;
    if (found.issuer === localIssuer) {
      problems.push(`${at}.issuer: "${found.issuer}" is the gateway's own (GATEWAY_JWT_ISSUER)`);
    } else if (seen.has(found.issuer)) {
      problems.push(`${at}.issuer: "${found.issuer}" is listed twice`);
    }
    seen.add(found.issuer);
    issuers.push(found);
  });
  return { issuers: problems.length > 0 ? [] : issuers, problems };
}

function readIssuer(at: string, item: unknown, problems: string[]): IdpIssuer | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const o = item as Record<string, unknown>;
  const before = problems.length;
  for (const key of Object.keys(o)) {
    if (!FIELDS.includes(key)) problems.push(`${at}.${key}: unknown field (expected ${FIELDS.join(', ')})`);
  }
  const issuer = o.issuer;
  if (!isText(issuer)) problems.push(`${at}.issuer: expected a non-empty string`);
  const jwksUrl = o.jwksUrl;
  if (!isText(jwksUrl) || !isHttpUrl(jwksUrl)) problems.push(`${at}.jwksUrl: expected an http or https URL`);
  const audiences = typeof o.audience === 'string' ? [o.audience] : o.audience;
  if (!Array.isArray(audiences) || audiences.length === 0 || !audiences.every(isText)) {
    problems.push(`${at}.audience: expected a non-empty string or a non-empty list of them`);
  }
  const algorithms = o.algorithms ?? ['RS256'];
  if (!Array.isArray(algorithms) || algorithms.length === 0 || !algorithms.every(isIdpAlgorithm)) {
    problems.push(`${at}.algorithms: expected a non-empty list of ${IDP_ALGORITHMS.join(', ')}`);
  }
  const usernameClaim = o.usernameClaim ?? 'preferred_username';
  if (!isText(usernameClaim)) problems.push(`${at}.usernameClaim: expected a non-empty string`);
  if (problems.length > before) return undefined;
  return {
    issuer: issuer as string,
    jwksUrl: jwksUrl as string,
    audiences: audiences as string[],
    algorithms: [...new Set(algorithms as IdpAlgorithm[])],
    usernameClaim: usernameClaim as string,
  };
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

function isIdpAlgorithm(v: unknown): v is IdpAlgorithm {
  return (IDP_ALGORITHMS as readonly unknown[]).includes(v);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}
