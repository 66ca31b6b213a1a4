import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Metadata,
  credentials,
  type ChannelCredentials,
  type Client,
  type ServiceError,
  type ChannelOptions,
} from '@grpc/grpc-js';
import { startRateLimit, type RateLimitApp } from '../src/app.js';
import { loadRateLimitServiceDefinition } from '../src/servers/grpc-server.js';
import { loadSettings } from '../src/settings.js';
import type { Logger } from '@portcullis/kit';
import { quietLog } from '@portcullis/testing';

export { quietLog };

export interface Harness {
  app: RateLimitApp;
  /** `<tmp>/config`, where the YAML files go. */
  configDir: string;
  root: string;
  rls: RlsClient;
  json(body: unknown, method?: string): Promise<{ status: number; body: unknown; headers: Headers }>;
  get(path: string, port?: 'http' | 'debug'): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** The service's three listeners on 127.0.0.1, on ports the system picks (read back from `app.ports`). */
export const LOOPBACK_LISTENERS = {
  HOST: '127.0.0.1',
  PORT: '0',
  GRPC_HOST: '127.0.0.1',
  GRPC_PORT: '0',
  DEBUG_HOST: '127.0.0.1',
  DEBUG_PORT: '0',
} as const;

/**
 * Starts the whole service on 127.0.0.1 with free ports, the given YAML files in a fresh runtime root and
 * the given environment (the same variables a deployment sets). `at.now` pins the service's clock.
 */
export async function startHarness(
  files: Record<string, string>,
  env: Record<string, string> = {},
  at?: RuntimeRoot & { now?: () => number; log?: Logger },
): Promise<Harness> {
  const { root, configDir } = at ?? (await createRuntimeRoot(files));
  const settings = loadSettings({
    ...LOOPBACK_LISTENERS,
    RUNTIME_ROOT: root,
    RUNTIME_WATCH_ROOT: 'false',
    BACKEND_TYPE: 'memory',
    USE_STATSD: 'false',
    ...env,
  });
  const app = await startRateLimit(settings, {
    log: at?.log ?? quietLog,
    ...(at?.now ? { now: at.now } : {}),
  });
  const rls = createRlsClient(`127.0.0.1:${app.ports.grpc}`);
  const base = `http://127.0.0.1:${app.ports.http}`;
  return {
    app,
    root,
    configDir,
    rls,
    async json(body, method = 'POST') {
      const res = await fetch(`${base}/json`, {
        method,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        body: text ? (JSON.parse(text) as unknown) : undefined,
        headers: res.headers,
      };
    },
    async get(path, port = 'http') {
      const res = await fetch(`http://127.0.0.1:${app.ports[port]}${path}`);
      return { status: res.status, text: await res.text() };
    },
    async close() {
      rls.close();
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface RuntimeRoot {
  root: string;
  configDir: string;
}

/** A fresh runtime root holding `config/<name>` for each file. */
export async function createRuntimeRoot(files: Record<string, string>): Promise<RuntimeRoot> {
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-test-'));
  const configDir = join(root, 'config');
  await mkdir(configDir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(configDir, name), text);
  return { root, configDir };
}

export interface RlsClient {
  /** `metadata`: gRPC headers to send along, such as a `traceparent`. */
  shouldRateLimit(request: object, metadata?: Record<string, string>): Promise<Record<string, unknown>>;
  close(): void;
}

/** A plain gRPC client of `envoy.service.ratelimit.v3.RateLimitService`, as Envoy would call it. */
export function createRlsClient(
  address: string,
  channelCredentials: ChannelCredentials = credentials.createInsecure(),
  options: ChannelOptions = {},
): RlsClient {
  const Ctor = loadRateLimitServiceDefinition();
  const client = new Ctor(address, channelCredentials, options) as unknown as Client & {
    ShouldRateLimit(
      req: object,
      metadata: Metadata,
      cb: (err: ServiceError | null, res: Record<string, unknown>) => void,
    ): void;
  };
  return {
    shouldRateLimit: (request, headers = {}) => {
      const metadata = new Metadata();
      for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
      return new Promise((resolve, reject) =>
        client.ShouldRateLimit(request, metadata, (err, res) => (err ? reject(err) : resolve(res))),
      );
    },
    close: () => client.close(),
  };
}
