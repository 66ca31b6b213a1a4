import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runRateLimit, spawnLogged, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryOperatorEnv } from '../operator/test/directory-operator.js';

// Issue 38, finding 3: on a terminal (LOG_FORMAT=text, the default) a process that cannot start says why in
// one plain line per problem, naming the setting or file:line:column and what to do, without a stack.

const repo = join(import.meta.dirname, '..');
const tsx = join(repo, 'node_modules/.bin/tsx');

/** A port held by this test, as another program would hold it. */
async function takenPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

describe('issue 38: start-up errors on a terminal', () => {
  let taken: { server: Server; port: number };
  beforeAll(async () => {
    taken = await takenPort();
  });
  afterAll(() => new Promise<void>((resolve) => taken.server.close(() => resolve())));

  it('names each bad setting on a line of its own, then says what to do', async () => {
    const p = runRateLimit({ BACKEND_TYPE: 'nonsense', KVSTORE_POOL_SIZE: '0' });
    expect(await p.exited).toBe(1);
    expect(p.output()).toBe(
      [
        'ratelimit: BACKEND_TYPE="nonsense": expected one of redis, objcache, memory (or memcache)',
        'ratelimit: KVSTORE_POOL_SIZE="0": expected an integer ≥ 1 ≤ 1024',
        'ratelimit: not started: fix these settings and start it again (its docs/settings.md lists every setting)',
        '',
      ].join('\n'),
    );
  });

  it('names the variable of a port in use, once, for the inbox', async () => {
    const p = spawnLogged(tsx, [join(repo, 'services/inbox/src/main.ts')], {
      INBOX_HOST: '127.0.0.1',
      INBOX_PORT: String(taken.port),
    });
    expect(await p.exited).toBe(1);
    expect(p.output()).toBe(
      `inbox: not started: INBOX_PORT=${taken.port}: 127.0.0.1:${taken.port} is in use; ` +
        `stop what listens there, or set INBOX_PORT to a free port\n`,
    );
  });

  it("names the rate-limit service's gRPC port variable, and leaves JSON logs as they were", async () => {
    const runtime = await mkdtemp(join(tmpdir(), 'issue-38-'));
    try {
      await mkdir(join(runtime, 'config'));
      await writeFile(join(runtime, 'config/a.yaml'), 'domain: a\ndescriptors: []\n');
      const p = runRateLimit({
        BACKEND_TYPE: 'memory',
        USE_STATSD: 'false',
        RATELIMIT_WORKERS: '1',
        RUNTIME_ROOT: runtime,
        RUNTIME_WATCH_ROOT: 'false',
        HOST: '127.0.0.1',
        PORT: '0',
        DEBUG_HOST: '127.0.0.1',
        DEBUG_PORT: '0',
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(taken.port),
      });
      expect(await p.exited).toBe(1);
      expect(p.output()).toBe(
        `ratelimit: not started: GRPC_PORT=${taken.port}: 127.0.0.1:${taken.port} is in use; ` +
          `stop what listens there, or set GRPC_PORT to a free port\n`,
      );

      const json = runRateLimit({ BACKEND_TYPE: 'nonsense', LOG_FORMAT: 'json' });
      expect(await json.exited).toBe(1);
      expect(JSON.parse(json.output())).toMatchObject({
        level: 'fatal',
        '@message': 'invalid settings',
        problems: ['BACKEND_TYPE="nonsense": expected one of redis, objcache, memory (or memcache)'],
      });
    } finally {
      await rm(runtime, { recursive: true, force: true });
    }
  });

  it('reports a broken YAML resource as file:line:column and the message, without a stack', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'issue-38-yaml-'));
    await writeFile(
      join(dir, 'broken.yaml'),
      'apiVersion: portcullis.dev/v1alpha1\nkind: RateLimitConfig\nmetadata: {name: x, namespace: default\nspec:\n  domain: x\n',
    );
    const p = spawnLogged(tsx, [join(repo, 'operator/src/main.ts')], directoryOperatorEnv(dir));
    try {
      await waitUntil(() => p.output().includes('manifest not read'), 60_000);
      const line =
        p
          .output()
          .split('\n')
          .find((l) => l.includes('manifest not read')) ?? '';
      expect(line).toContain(
        'err="broken.yaml:4:1: Flow map in block collection must be sufficiently indented and end with a }"',
      );
      expect(line).not.toContain('column 1:');
      expect(p.output()).not.toMatch(/"stack"|\\n\s+at /);
    } finally {
      await p.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
