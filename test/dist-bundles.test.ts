import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, ENTRIES } from '../hack/build-dist.js';
import { directoryOperatorEnv } from '../operator/test/directory-operator.js';

// What the container images run (Dockerfile): the bundles of hack/build-dist.ts on plain Node, no
// TypeScript runtime, protos and the inspector found through the images' settings. Docker itself cannot
// run on these machines; this checks everything the images do but the `docker build`.

const repo = join(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);
// inside the repository, so the bundles resolve packages from its node_modules as the images do from theirs
const outDir = join(repo, '.tmp', `dist-test-${process.pid}`);

interface Manifest {
  dependencies?: Record<string, string>;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

async function productionDependencies(): Promise<Set<string>> {
  const dirs = [
    ...(await readdir(join(repo, 'lib'))).map((d) => join(repo, 'lib', d)),
    ...(await readdir(join(repo, 'services'))).map((d) => join(repo, 'services', d)),
    join(repo, 'operator'),
  ];
  const names = new Set<string>();
  for (const dir of dirs) {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Manifest;
    for (const name of Object.keys(manifest.dependencies ?? {})) names.add(name);
  }
  return names;
}

describe('service bundles (what the images run)', () => {
  let imports: Record<string, string[]>;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    ({ imports } = await buildDist(outDir));
  }, 60_000);
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await rm(outDir, { recursive: true, force: true });
  });

  const output = new Map<ChildProcess, string>();
  const start = (bundle: string, env: Record<string, string>): ChildProcess => {
    const child = spawn(process.execPath, [join(outDir, bundle)], {
      // only what an image sets: no tsx, no repository-relative paths
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        PORTCULLIS_PROTO_DIR: join(repo, 'protos'),
        ...env,
      },
      cwd: outDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    output.set(child, '');
    const keep = (chunk: Buffer) => output.set(child, (output.get(child) ?? '') + chunk.toString());
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    children.push(child);
    return child;
  };
  const ok = (url: string, init?: RequestInit) => () =>
    fetch(url, init).then(
      (r) => r.ok,
      () => false,
    );

  it('builds one bundle per service that imports only production dependencies and Node built-ins', async () => {
    expect(Object.keys(imports).sort()).toEqual(
      Object.keys(ENTRIES)
        .map((n) => `${n}.mjs`)
        .sort(),
    );
    const allowed = await productionDependencies();
    const builtins = new Set(builtinModules);
    const stray = Object.entries(imports).flatMap(([bundle, specifiers]) =>
      specifiers
        .filter((s) => !s.startsWith('node:') && !builtins.has(s))
        .map(packageOf)
        .filter((name) => !allowed.has(name))
        .map((name) => `${bundle}: ${name}`),
    );
    expect(stray).toEqual([]);
  });

  it('runs the operator, the rate-limit service, the gateway and the inbox from their bundles', async () => {
    const [xds, opHealth, opMetrics, rlHttp, rlGrpc, rlDebug, gw, ib] = await Promise.all(
      Array.from({ length: 8 }, () => freePort()),
    );
    start(
      'operator.mjs',
      directoryOperatorEnv(join(repo, 'examples/resources'), {
        XDS_PORT: String(xds),
        HEALTH_PORT: String(opHealth),
        METRICS_PORT: String(opMetrics),
        OPERATOR_SERVICE_ENDPOINTS: `ratelimit=127.0.0.1:${rlGrpc}`,
      }),
    );
    const xdsEnv = { retry: '200ms', url: `127.0.0.1:${xds}` };
    start('ratelimit.mjs', {
      BACKEND_TYPE: 'memory',
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: xdsEnv.url,
      CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: xdsEnv.retry,
      HOST: '127.0.0.1',
      GRPC_HOST: '127.0.0.1',
      DEBUG_HOST: '127.0.0.1',
      PORT: String(rlHttp),
      GRPC_PORT: String(rlGrpc),
      DEBUG_PORT: String(rlDebug),
    });
    start('gateway.mjs', {
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(gw),
      GATEWAY_XDS_SERVER_URL: xdsEnv.url,
      GATEWAY_XDS_RETRY_INTERVAL: xdsEnv.retry,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${rlGrpc}`,
      GATEWAY_STATE_DIR: join(outDir, 'state'),
    });
    start('inbox.mjs', {
      INBOX_HOST: '127.0.0.1',
      INBOX_PORT: String(ib),
      INBOX_WEB_DIR: join(outDir, 'inbox-web'),
      INBOX_XDS_SERVER_URL: xdsEnv.url,
      INBOX_XDS_RETRY_INTERVAL: xdsEnv.retry,
    });
    await waitUntil(ok(`http://127.0.0.1:${opHealth}/healthz`), 60_000);
    // the rate-limit service has its rules from the operator: the example's 10 a minute
    const decide = () =>
      fetch(`http://127.0.0.1:${rlHttp}/json`, {
        method: 'POST',
        body: JSON.stringify({
          domain: 'example',
          descriptors: [{ entries: [{ key: 'remote_address', value: '10.9.9.9' }] }],
        }),
      });
    await waitUntil(async () => (await decide().catch(() => undefined))?.status === 200, 60_000);
    expect(await (await decide()).json()).toMatchObject({
      overallCode: 'OK',
      statuses: [{ currentLimit: { requestsPerUnit: 10, unit: 'MINUTE' } }],
    });
    // the client shipped in the ratelimit image asks the same service over gRPC
    const { stdout } = await execFileAsync(
      process.execPath,
      [
        join(outDir, 'ratelimit-client.mjs'),
        ...[
          '-dial_string',
          `127.0.0.1:${rlGrpc}`,
          '-domain',
          'example',
          '-descriptors',
          'remote_address=10.9.9.8',
        ],
      ],
      { env: { PATH: process.env.PATH ?? '', PORTCULLIS_PROTO_DIR: join(repo, 'protos') }, cwd: outDir },
    );
    expect(JSON.parse(stdout)).toMatchObject({ overallCode: 'OK' });
    await waitUntil(ok(`http://127.0.0.1:${gw}/api/ping`), 60_000);
    await waitUntil(ok(`http://127.0.0.1:${ib}/healthz`), 60_000);
    const page = await fetch(`http://127.0.0.1:${ib}/`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const created = await fetch(`http://127.0.0.1:${ib}/api/endpoints`, { method: 'POST' });
    expect(created.status).toBe(201);
  }, 240_000);

  it('refuses to start the forwarding worker without Redis, naming the setting', async () => {
    const child = start('inbox-worker.mjs', {});
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(output.get(child)).toContain('REDIS_URL: the forwarding worker needs Redis');
  });
});
