import { readOrThrow, type ConfigPath, type Reader } from '../reader.js';
import { int, obj, rule, str, type Schema } from './schema.js';

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

const PRESET_KEYS = ['provider', 'toleranceSeconds', 'header', 'algorithm', 'encoding', 'prefix'] as const;
const KEYS = new Set([...PRESET_KEYS, 'secret']);
const REF_KEYS = new Set([...PRESET_KEYS, 'secretRef']);
const HMAC_KEYS = ['header', 'algorithm', 'encoding', 'prefix'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const PRINTABLE = /^[\x20-\x7e]{0,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A Secret's name (a DNS subdomain) and one of its keys, as Kubernetes allows them. */
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;

/** Where an InboxEndpoint resource's signature secret is: a key of a Secret in the resource's namespace. */
export interface SecretKeyRef {
  name: string;
  key: string;
}

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
    const preset = readPreset(read, m, []);
    const secret = read.str(m.secret, ['secret']) ?? '';
    const problem = signatureSecretProblem(preset.provider, secret);
    if (problem) read.fail(['secret'], problem);
    return { preset, secret };
  });
}

/**
 * An InboxEndpoint's `spec.signature`: the preset's fields with `secretRef: {name, key}` instead of the
 * secret, which the operator reads from the Secret and checks with `signatureSecretProblem`.
 */
export function readSignatureRef(
  read: Reader,
  value: unknown,
  path: ConfigPath,
): { preset: SignaturePreset; secretRef: SecretKeyRef } {
  const m = read.map(value, path, REF_KEYS) ?? {};
  const preset = readPreset(read, m, path);
  const at = [...path, 'secretRef'];
  const ref = read.map(m.secretRef, at, new Set(['name', 'key'])) ?? {};
  const name = read.str(ref.name, [...at, 'name']) ?? '';
  if (!SECRET_NAME.test(name))
    read.fail([...at, 'name'], "expected the name of a Secret in the resource's namespace");
  const key = read.str(ref.key, [...at, 'key']) ?? '';
  if (!SECRET_KEY.test(key))
    read.fail([...at, 'key'], 'expected a key of the Secret (A-Z, a-z, 0-9, -, _ and .)');
  return { preset, secretRef: { name, key } };
}

/** Why `secret` cannot be `provider`'s secret, or undefined when it can. */
export function signatureSecretProblem(provider: SignatureProvider, secret: string): string | undefined {
  if (secret === '' || secret.length > MAX_SECRET_CHARS)
    return `expected 1 to ${MAX_SECRET_CHARS} characters`;
  if (provider === 'standard-webhooks' && !BASE64.test(secret.replace(/^whsec_/, ''))) {
    return 'expected whsec_ followed by base64, as the sender shows it';
  }
  return undefined;
}

function readPreset(read: Reader, m: Record<string, unknown>, path: ConfigPath): SignaturePreset {
  const at = (key: string): ConfigPath => [...path, key];
  const name = read.str(m.provider, at('provider')) ?? '';
  const provider = SIGNATURE_PROVIDERS.find((p) => p === name);
  if (!provider) read.fail(at('provider'), `expected one of ${SIGNATURE_PROVIDERS.join(', ')}`);
  const timed = provider !== undefined && TIMED.has(provider);
  let toleranceSeconds = DEFAULT_TOLERANCE_SECONDS;
  if (m.toleranceSeconds != null && !timed) {
    read.fail(at('toleranceSeconds'), 'only for stripe, slack and standard-webhooks');
  } else if (m.toleranceSeconds != null) {
    const n = read.uint32(m.toleranceSeconds, at('toleranceSeconds'));
    if (n >= 1 && n <= MAX_TOLERANCE_SECONDS) toleranceSeconds = n;
    else read.fail(at('toleranceSeconds'), `expected 1 to ${MAX_TOLERANCE_SECONDS} seconds`);
  }
  if (provider !== 'hmac') {
    for (const key of HMAC_KEYS) if (m[key] != null) read.fail(at(key), 'only for provider hmac');
  }
  switch (provider) {
    case 'stripe':
    case 'slack':
    case 'standard-webhooks':
      return { provider, toleranceSeconds };
    case 'hmac': {
      const header = read.str(m.header, at('header')) ?? '';
      if (!HEADER_NAME.test(header)) read.fail(at('header'), 'expected a header name (1 to 100 characters)');
      const algorithm = HMAC_ALGORITHMS.find(
        (a) => a === (read.str(m.algorithm, at('algorithm')) ?? 'sha256'),
      );
      if (!algorithm) read.fail(at('algorithm'), `expected one of ${HMAC_ALGORITHMS.join(', ')}`);
      const encoding = HMAC_ENCODINGS.find((e) => e === (read.str(m.encoding, at('encoding')) ?? 'hex'));
      if (!encoding) read.fail(at('encoding'), `expected one of ${HMAC_ENCODINGS.join(', ')}`);
      const prefix = read.str(m.prefix, at('prefix')) ?? '';
      if (!PRINTABLE.test(prefix)) read.fail(at('prefix'), 'at most 64 printable ASCII characters');
      return { provider, header, algorithm: algorithm ?? 'sha256', encoding: encoding ?? 'hex', prefix };
    }
    case 'github':
    case 'shopify':
    case undefined:
      return { provider: provider ?? 'github' };
  }
}

/** An InboxEndpoint's `spec.signature`, as `readSignatureRef` reads it. */
export const signatureRefSchema: Schema = obj(
  {
    provider: str({ enum: [...SIGNATURE_PROVIDERS] }),
    toleranceSeconds: int({
      minimum: 1,
      maximum: MAX_TOLERANCE_SECONDS,
      description: `stripe, slack and standard-webhooks: how far a signed timestamp may be; ${DEFAULT_TOLERANCE_SECONDS} if unset.`,
    }),
    header: str({ maxLength: 100, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
    algorithm: str({ enum: [...HMAC_ALGORITHMS], description: 'hmac: sha256 if unset.' }),
    encoding: str({ enum: [...HMAC_ENCODINGS], description: 'hmac: hex if unset.' }),
    prefix: str({ maxLength: 64, description: 'hmac: text before the digest, e.g. sha256=.' }),
    secretRef: obj(
      {
        name: str({ maxLength: 253, description: "A Secret in the resource's namespace." }),
        key: str({ maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' }),
      },
      { required: ['name', 'key'] },
    ),
  },
  {
    required: ['provider', 'secretRef'],
    description:
      'Checks each capture as the provider signs it; the secret is read from a Secret, never written here.',
    'x-kubernetes-validations': [
      rule("self.provider != 'hmac' || has(self.header)", 'header is required for provider hmac'),
      rule(
        "self.provider == 'hmac' || !(has(self.header) || has(self.algorithm) || has(self.encoding) || has(self.prefix))",
        'header, algorithm, encoding and prefix are for provider hmac only',
      ),
      rule(
        `!has(self.toleranceSeconds) || self.provider in [${[...TIMED].map((p) => `'${p}'`).join(', ')}]`,
        'toleranceSeconds is for stripe, slack and standard-webhooks only',
      ),
    ],
  },
);
