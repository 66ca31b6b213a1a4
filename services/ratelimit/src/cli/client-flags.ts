import { parseBoolean } from '@portcullis/kit';
import { UsageError } from './cli-errors.js';

export interface ClientFlags {
  dialString: string;
  domain: string;
  /** One per `-descriptors`, in order. */
  descriptors: Array<Array<{ key: string; value: string }>>;
  tls: { enabled: boolean; caFile: string; certFile: string; keyFile: string };
  help: boolean;
}

export const CLIENT_USAGE = `Usage: ratelimit-client [flags]

Asks envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit once and prints the response as JSON.
Exits 1 when the call fails (unreachable, TLS refused, an error status), 2 on bad flags.

  -dial_string <host:port>     the service (default localhost:8081)
  -domain <domain>             the rate-limit domain
  -descriptors <k=v,k2=v2>     one descriptor; repeat the flag for several
  -grpc-use-tls                connect with TLS
  -grpc-server-ca-file <path>  CA that signed the server certificate (default: the system's)
  -grpc-cert-file <path>       client certificate, for a server that asks for one (mTLS)
  -grpc-key-file <path>        its private key`;

type Setter = (flags: ClientFlags, value: string) => void;

const VALUED: Readonly<Record<string, Setter>> = {
  dial_string: (f, v) => (f.dialString = v),
  domain: (f, v) => (f.domain = v),
  descriptors: (f, v) => f.descriptors.push(parseDescriptor(v)),
  'grpc-server-ca-file': (f, v) => (f.tls.caFile = v),
  'grpc-cert-file': (f, v) => (f.tls.certFile = v),
  'grpc-key-file': (f, v) => (f.tls.keyFile = v),
};
const BOOLEAN: Readonly<Record<string, Setter>> = {
  'grpc-use-tls': (f, v) => (f.tls.enabled = parseBool('grpc-use-tls', v)),
  h: (f) => (f.help = true),
  help: (f) => (f.help = true),
};

/**
 * Reads flags the way Go's `flag` package does, so upstream's command lines work unchanged: `-name value`,
 * `-name=value`, `--name` as `-name`, booleans bare or `=true|false`, parsing stops at `--` or the first
 * argument that is not a flag. @throws UsageError naming the bad flag.
 */
export function parseClientFlags(argv: readonly string[]): ClientFlags {
  const flags: ClientFlags = {
    dialString: 'localhost:8081',
    domain: '',
    descriptors: [],
    tls: { enabled: false, caFile: '', certFile: '', keyFile: '' },
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--' || !arg.startsWith('-') || arg === '-') break;
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const inline = eq === -1 ? undefined : body.slice(eq + 1);
    const boolean = BOOLEAN[name];
    const valued = VALUED[name];
    if (boolean) boolean(flags, inline ?? 'true');
    else if (valued) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`flag needs an argument: -${name}`);
      valued(flags, value);
    } else throw new UsageError(`flag provided but not defined: -${name}`);
  }
  return flags;
}

/** `k=v,k2=v2` into entries; each pair needs exactly one `=`, as upstream's client requires. */
function parseDescriptor(text: string): Array<{ key: string; value: string }> {
  return text.split(',').map((pair) => {
    const parts = pair.split('=');
    if (parts.length !== 2) throw new UsageError(`-descriptors "${text}": expected key=value,key2=value2`);
    return { key: parts[0] ?? '', value: parts[1] ?? '' };
  });
}

function parseBool(name: string, value: string): boolean {
  const b = parseBoolean(value);
  if (b === undefined) throw new UsageError(`invalid boolean value "${value}" for -${name}`);
  return b;
}
