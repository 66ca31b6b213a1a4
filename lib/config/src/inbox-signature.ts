import { readOrThrow } from './reader.js';

/** The senders whose signature scheme an inbox endpoint can check; `hmac` is any HMAC header of the body. */
export const SIGNATURE_PROVIDERS = [
  'github',
  'stripe',
  'slack',
  'shopify',
  'standard-webhooks',
  'hmac',
] as const;
export type SignatureProvider = (typeof SIGNATURE_PROVIDERS)[number];

export const HMAC_ALGORITHMS = ['sha1', 'sha256', 'sha512'] as const;
export const HMAC_ENCODINGS = ['hex', 'base64'] as const;

/** The providers whose signature carries a timestamp, checked against `toleranceSeconds`. */
const TIMED = new Set<SignatureProvider>(['stripe', 'slack', 'standard-webhooks']);
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const MAX_TOLERANCE_SECONDS = 86_400;
export const MAX_SECRET_CHARS = 1024;

/** A signature preset without its secret: what may be shown. */
export type SignaturePreset =
  | { provider: 'github' | 'shopify' }
  | { provider: 'stripe' | 'slack' | 'standard-webhooks'; toleranceSeconds: number }
  | {
      provider: 'hmac';
      /** The header carrying the signature, e.g. `X-Signature`. */
      header: string;
      algorithm: (typeof HMAC_ALGORITHMS)[number];
      encoding: (typeof HMAC_ENCODINGS)[number];
      /** Text before the digest in the header, e.g. `sha256=`; may be empty. */
      prefix: string;
    };

const KEYS = new Set(['provider', 'secret', 'toleranceSeconds', 'header', 'algorithm', 'encoding', 'prefix']);
const HMAC_KEYS = ['header', 'algorithm', 'encoding', 'prefix'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const PRINTABLE = /^[\x20-\x7e]{0,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Validates `{provider, secret, toleranceSeconds?, header?, algorithm?, encoding?, prefix?}`, filling
 * defaults. Throws a `ConfigError` listing every problem, each naming its field.
 */
export function parseSignatureSettings(
  source: string,
  value: unknown,
): { preset: SignaturePreset; secret: string } {
  return readOrThrow(source, (read) => {
    const m = read.map(value, [], KEYS) ?? {};
    const name = read.str(m.provider, ['provider']) ?? '';
    const provider = SIGNATURE_PROVIDERS.find((p) => p === name);
    if (!provider) read.fail(['provider'], `expected one of ${SIGNATURE_PROVIDERS.join(', ')}`);
    const secret = read.str(m.secret, ['secret']) ?? '';
    if (secret === '' || secret.length > MAX_SECRET_CHARS) {
      read.fail(['secret'], `expected 1 to ${MAX_SECRET_CHARS} characters`);
    } else if (provider === 'standard-webhooks' && !BASE64.test(secret.replace(/^whsec_/, ''))) {
      read.fail(['secret'], 'expected whsec_ followed by base64, as the sender shows it');
    }
    const timed = provider !== undefined && TIMED.has(provider);
    let toleranceSeconds = DEFAULT_TOLERANCE_SECONDS;
    if (m.toleranceSeconds != null && !timed) {
      read.fail(['toleranceSeconds'], 'only for stripe, slack and standard-webhooks');
    } else if (m.toleranceSeconds != null) {
      const n = read.uint32(m.toleranceSeconds, ['toleranceSeconds']);
      if (n >= 1 && n <= MAX_TOLERANCE_SECONDS) toleranceSeconds = n;
      else read.fail(['toleranceSeconds'], `expected 1 to ${MAX_TOLERANCE_SECONDS} seconds`);
    }
    if (provider !== 'hmac') {
      for (const key of HMAC_KEYS) if (m[key] != null) read.fail([key], 'only for provider hmac');
    }
    const preset = ((): SignaturePreset => {
      switch (provider) {
        case 'stripe':
        case 'slack':
        case 'standard-webhooks':
          return { provider, toleranceSeconds };
        case 'hmac': {
          const header = read.str(m.header, ['header']) ?? '';
          if (!HEADER_NAME.test(header))
            read.fail(['header'], 'expected a header name (1 to 100 characters)');
          const algorithm = HMAC_ALGORITHMS.find(
            (a) => a === (read.str(m.algorithm, ['algorithm']) ?? 'sha256'),
          );
          if (!algorithm) read.fail(['algorithm'], `expected one of ${HMAC_ALGORITHMS.join(', ')}`);
          const encoding = HMAC_ENCODINGS.find((e) => e === (read.str(m.encoding, ['encoding']) ?? 'hex'));
          if (!encoding) read.fail(['encoding'], `expected one of ${HMAC_ENCODINGS.join(', ')}`);
          const prefix = read.str(m.prefix, ['prefix']) ?? '';
          if (!PRINTABLE.test(prefix)) read.fail(['prefix'], 'at most 64 printable ASCII characters');
          return {
            provider,
            header,
            algorithm: algorithm ?? 'sha256',
            encoding: encoding ?? 'hex',
            prefix,
          };
        }
        case 'github':
        case 'shopify':
        case undefined:
          return { provider: provider ?? 'github' };
      }
    })();
    return { preset, secret };
  });
}
