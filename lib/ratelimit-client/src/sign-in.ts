import type { DescriptorEntry, LocalLimitRule } from './types.js';

const SIGN_IN = { key: 'action', value: 'sign_in' } as const;

/**
 * Sign-in, counted per client address and per user name (lower-cased: names are unique regardless of
 * case), so neither many names from one address nor one name from many addresses goes unchecked. The
 * gateway (`POST /auth`) and the inbox ask their own domains with these.
 */
export function signInDescriptors(remoteAddress: string, username: string): DescriptorEntry[][] {
  return [
    [SIGN_IN, { key: 'remote_address', value: remoteAddress }],
    [SIGN_IN, { key: 'username', value: username.toLowerCase() }],
  ];
}

/** The in-process limits of `signInDescriptors` in `domain`, per minute; 0 turns one off. */
export function signInFallbackRules(
  domain: string,
  perMinute: { perAddress: number; perUsername: number },
): LocalLimitRule[] {
  return [
    {
      domain,
      entries: [SIGN_IN, { key: 'remote_address' }],
      requestsPerUnit: perMinute.perAddress,
      unit: 'minute',
    },
    {
      domain,
      entries: [SIGN_IN, { key: 'username' }],
      requestsPerUnit: perMinute.perUsername,
      unit: 'minute',
    },
  ];
}
