import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRateLimitServiceDefinition } from '@portcullis/ratelimit';
import { startDirectoryPlatform, type DirectoryPlatform } from './directory-platform.js';

const manifest = (rpu: number) => `apiVersion: portcullis.dev/v1alpha1
kind: RateLimitConfig
metadata: {name: web, namespace: demo}
spec:
  domain: web
  descriptors:
    - key: user
      rate_limit: {unit: hour, requests_per_unit: ${rpu}}
`;

type RlsClient = Client & {
  ShouldRateLimit(
    req: object,
    cb: (
      err: ServiceError | null,
      res: {
        overallCode: string;
        statuses: Array<{ limitRemaining?: number; currentLimit?: { requestsPerUnit: number } }>;
      },
    ) => void,
  ): void;
};

describe('local platform: operator (directory) → xDS → ratelimit, called through xds:///ratelimit', () => {
  let dir: string;
  let platform: DirectoryPlatform;
  let client: RlsClient;

  const ask = (user: string) =>
    new Promise<Parameters<Parameters<RlsClient['ShouldRateLimit']>[1]>[1]>((resolve, reject) =>
      client.ShouldRateLimit(
        { domain: 'web', descriptors: [{ entries: [{ key: 'user', value: user }] }] },
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    );

  beforeAll(async () => {
    register();
    dir = await mkdtemp(join(tmpdir(), 'platform-'));
    await writeFile(join(dir, 'web.yaml'), manifest(3));
    platform = await startDirectoryPlatform(dir);
    const bootstrap = {
      xds_servers: [
        {
          server_uri: platform.xds,
          channel_creds: [{ type: 'insecure' }],
          server_features: ['xds_v3'],
        },
      ],
      node: { id: 'gateway-0', locality: {} },
    };
    const Ctor = loadRateLimitServiceDefinition();
    client = new Ctor('xds:///ratelimit', credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    }) as unknown as RlsClient;
  });
  afterAll(async () => {
    client.close();
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves decisions from the custom resources to a client that found the service over xDS', async () => {
    const first = await ask('alice');
    expect(first).toMatchObject({
      overallCode: 'OK',
      statuses: [{ limitRemaining: 2, currentLimit: { requestsPerUnit: 3 } }],
    });
    await ask('alice');
    await ask('alice');
    expect((await ask('alice')).overallCode).toBe('OVER_LIMIT');
    const nodes = platform.operator.xds
      .clients()
      .map((c) => c.nodeId)
      .sort();
    expect(nodes).toEqual(['gateway-0', 'ratelimit-0']);
  });

  it('applies an edit of the manifest', async () => {
    const started = Date.now();
    await writeFile(join(dir, 'web.yaml'), manifest(50));
    let limit: number | undefined;
    while (limit !== 50 && Date.now() - started < 5000) {
      limit = (await ask('bob')).statuses[0]?.currentLimit?.requestsPerUnit;
      if (limit !== 50) await new Promise((r) => setTimeout(r, 20));
    }
    expect(limit).toBe(50);
  });
});
