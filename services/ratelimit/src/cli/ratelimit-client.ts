import { readFile } from 'node:fs/promises';
import { credentials, type ChannelCredentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadRateLimitServiceDefinition } from '../servers/grpc-server.js';
import { UsageError } from './cli-errors.js';
import { CLIENT_USAGE, parseClientFlags, type ClientFlags } from './client-flags.js';

// `ratelimit-client`, upstream's client_cmd with its flags: one ShouldRateLimit call, the response printed
// as JSON on stdout. bin/ratelimit-client.mjs runs this.

type RlsClient = Client & {
  ShouldRateLimit(request: object, callback: (err: ServiceError | null, response: object) => void): void;
};

async function channelCredentials(tls: ClientFlags['tls']): Promise<ChannelCredentials> {
  if (!tls.enabled) return credentials.createInsecure();
  const read = async (flag: string, path: string): Promise<Buffer | null> => {
    if (path === '') return null;
    try {
      return await readFile(path);
    } catch (err: unknown) {
      throw new UsageError(`-${flag} "${path}": cannot read (${(err as NodeJS.ErrnoException).code})`);
    }
  };
  const [ca, cert, key] = await Promise.all([
    read('grpc-server-ca-file', tls.caFile),
    read('grpc-cert-file', tls.certFile),
    read('grpc-key-file', tls.keyFile),
  ]);
  return credentials.createSsl(ca, key, cert);
}

async function askOnce(flags: ClientFlags): Promise<object> {
  const Ctor = loadRateLimitServiceDefinition();
  const client = new Ctor(flags.dialString, await channelCredentials(flags.tls)) as unknown as RlsClient;
  try {
    return await new Promise<object>((resolve, reject) =>
      client.ShouldRateLimit(
        {
          domain: flags.domain,
          descriptors: flags.descriptors.map((entries) => ({ entries })),
          hitsAddend: 1,
        },
        (err, response) => (err ? reject(err) : resolve(response)),
      ),
    );
  } finally {
    client.close();
  }
}

try {
  const flags = parseClientFlags(process.argv.slice(2));
  if (flags.help) process.stdout.write(`${CLIENT_USAGE}\n`);
  else process.stdout.write(`${JSON.stringify(await askOnce(flags), null, 2)}\n`);
} catch (err: unknown) {
  if (err instanceof UsageError) {
    process.stderr.write(`ratelimit-client: ${err.message}\n${CLIENT_USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`ratelimit-client: request error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
