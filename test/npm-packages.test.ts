import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { quietLog as log, startRateLimitProcess } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type InboxApp, loadSettings as loadInboxSettings } from '@portcullis/inbox';
import { buildNpmPackages, type BuiltNpmPackage } from '../hack/release/build-npm-packages.js';
import { readProjectVersion } from '../hack/release/versions.js';

// The two packages hack/release/build-npm-packages.ts makes for npm, as a user gets them: packed, installed
// from the tarballs into a project outside the repository (dependencies from npm's cache where it has them),
// and used there from plain Node: the client's README example against a real ratelimit service, the CLI's
// installed command against a real inbox. Nothing of the repository is on the way but the tarballs.

const repo = join(import.meta.dirname, '..');
const run = promisify(execFile);
const version = readProjectVersion(repo);
// npm run sets npm_config_* variables (the workspace, the prefix) that must not steer the user's npm
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

let scratch = '';
let built: BuiltNpmPackage[] = [];
const pkg = (folder: string): BuiltNpmPackage => {
  const found = built.find((b) => b.spec.folder === folder);
  if (!found) throw new Error(`no package ${folder}`);
  return found;
};

const npm = (args: readonly string[], cwd: string) =>
  run('npm', [...args], { cwd, env: cleanEnv, maxBuffer: 16 << 20 });

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'portcullis-npm-'));
  built = await buildNpmPackages(join(scratch, 'build'));
}, 300_000);
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('npm pack --dry-run', () => {
  interface PackResult {
    name: string;
    version: string;
    files: Array<{ path: string }>;
  }
  const packDry = async (folder: string): Promise<PackResult> => {
    const { stdout } = await npm(['pack', '--dry-run', '--json'], pkg(folder).dir);
    const [result] = JSON.parse(stdout) as PackResult[];
    if (!result) throw new Error(`npm pack printed no result: ${stdout}`);
    return result;
  };

  it('packs the client: the bundle, its declarations, the .proto files it loads, README, LICENSE', async () => {
    const packed = await packDry('ratelimit-client');
    expect([packed.name, packed.version]).toEqual(['@portcullis/ratelimit-client', version]);
    expect(packed.files.map((f) => f.path).sort()).toEqual([
      'LICENSE',
      'README.md',
      'index.d.ts',
      'index.mjs',
      'package.json',
      'protos/envoy/extensions/common/ratelimit/v3/ratelimit.proto',
      'protos/envoy/service/ratelimit/v3/rls.proto',
      'protos/grpc/health/v1/health.proto',
      'protos/portcullis/config/v1/config.proto',
      'protos/ratelimit/config/ratelimit/v3/rls_conf.proto',
    ]);
  });

  it('packs the CLI: one file, no dependencies', async () => {
    const packed = await packDry('inbox-cli');
    expect([packed.name, packed.version]).toEqual(['@portcullis/inbox-cli', version]);
    expect(packed.files.map((f) => f.path).sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin/portcullis-inbox.mjs',
      'package.json',
    ]);
    expect(pkg('inbox-cli').manifest).toMatchObject({
      bin: { 'portcullis-inbox': 'bin/portcullis-inbox.mjs' },
      dependencies: {},
    });
  });

  it('depends on published packages only, with the ranges the workspaces declare, and leaks nothing private', async () => {
    const kit = JSON.parse(await readFile(join(repo, 'lib/kit/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const protos = JSON.parse(await readFile(join(repo, 'lib/protos/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg('ratelimit-client').manifest.dependencies).toEqual({
      '@grpc/grpc-js': protos.dependencies['@grpc/grpc-js'],
      '@grpc/grpc-js-xds': protos.dependencies['@grpc/grpc-js-xds'],
      '@grpc/proto-loader': protos.dependencies['@grpc/proto-loader'],
      '@opentelemetry/api': kit.dependencies['@opentelemetry/api'],
      // the declarations' Logger is pino's
      pino: kit.dependencies.pino,
    });
    for (const { manifest, dir } of built) {
      expect(manifest).toMatchObject({ license: 'Apache-2.0', engines: { node: '>=20.9' }, type: 'module' });
      expect(manifest).not.toHaveProperty('private');
      expect(manifest).not.toHaveProperty('devDependencies');
      const code = await readFile(
        join(dir, 'bin' in manifest ? 'bin/portcullis-inbox.mjs' : 'index.mjs'),
        'utf8',
      );
      expect(code).not.toContain(repo);
      expect(code).not.toContain('sourceMappingURL');
      expect(code).not.toMatch(/from ["']@portcullis\//);
      // a test, a fixture or a setting file bundled by mistake would show its path in esbuild's comments
      expect(code.match(/^\/\/ .*(\.test\.ts|\/test\/|lib\/testing|\.env)$/m)).toBeNull();
    }
    const types = await readFile(join(pkg('ratelimit-client').dir, 'index.d.ts'), 'utf8');
    expect([...types.matchAll(/from '([^']+)'/g)].map((m) => m[1])).toEqual(['pino']);
  });
});

describe('installed from the tarballs', () => {
  let project = '';
  const bin = (name: string) => join(project, 'node_modules/.bin', name);

  beforeAll(async () => {
    project = join(scratch, 'project');
    const tarballs = join(scratch, 'tarballs');
    await mkdir(tarballs);
    const packed: string[] = [];
    for (const { dir } of built) {
      const { stdout } = await npm(['pack', '--json', '--pack-destination', tarballs], dir);
      const [result] = JSON.parse(stdout) as Array<{ filename: string }>;
      packed.push(join(tarballs, result?.filename ?? ''));
    }
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    const pino = String((pkg('ratelimit-client').manifest.dependencies as Record<string, string>).pino);
    // as the README says: the client and pino; the registry only for what npm's cache lacks
    await npm(
      [
        'install',
        ...packed,
        `pino@${pino}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
      ],
      project,
    );
  }, 300_000);

  describe('@portcullis/ratelimit-client', () => {
    let service: Awaited<ReturnType<typeof startRateLimitProcess>>;
    const readme = () =>
      readFile(join(project, 'node_modules/@portcullis/ratelimit-client/README.md'), 'utf8');

    // a day's window, not a minute's: the three runs straddle its start (the count begins again) only at midnight
    beforeAll(async () => {
      service = await startRateLimitProcess(
        {
          'example.yaml':
            'domain: example\ndescriptors:\n  - key: remote_address\n    rate_limit: {unit: day, requests_per_unit: 2}\n',
        },
        {},
        60_000,
      );
    }, 90_000);
    afterAll(async () => {
      await service.stop();
    });

    it("runs the README's example from plain Node: OK twice, then OVER_LIMIT, from the real service", async () => {
      const example = /## Usage\n\n```js\n([\s\S]*?)```/.exec(await readme())?.[1];
      expect(example).toContain("target: 'localhost:8081'");
      expect(example).toContain('timeoutMs: 200,');
      const script = join(project, 'example.mjs');
      // the service's address, and a deadline no busy machine misses: the failure mode must not answer here
      await writeFile(
        script,
        (example ?? '')
          .replace("'localhost:8081'", `'127.0.0.1:${service.ports.grpc}'`)
          .replace('timeoutMs: 200,', 'timeoutMs: 60_000,'),
      );
      const decisions: Array<{
        allowed: boolean;
        overLimit: boolean;
        failedOpen: boolean;
        statuses: unknown[];
      }> = [];
      for (let i = 0; i < 3; i++) {
        // the package's own protos: no PORTCULLIS_PROTO_DIR, nothing of the repository around
        const { stdout } = await run(process.execPath, [script], {
          cwd: project,
          env: { PATH: process.env.PATH ?? '' },
        });
        decisions.push(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as (typeof decisions)[number]);
      }
      expect(decisions.map((d) => [d.allowed, d.overLimit, d.failedOpen])).toEqual([
        [true, false, false],
        [true, false, false],
        [false, true, false],
      ]);
      expect(decisions[2]?.statuses).toEqual([
        expect.objectContaining({ code: 'OVER_LIMIT', requestsPerUnit: 2, unit: 'DAY' }),
      ]);
    }, 120_000);

    it("exports what the README's Exports table names", async () => {
      const table = /## Exports\n([\s\S]*?)\n\n/.exec(await readme())?.[1] ?? '';
      const names = table
        .split('\n')
        .slice(2)
        .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`(\w+)/g)].map((m) => m[1] ?? ''));
      expect(names).toContain('createRateLimitClient');
      const script = `const m = await import('@portcullis/ratelimit-client');
console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => m[n] === undefined)));`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(JSON.parse(stdout)).toEqual([]);
    }, 60_000);

    it('type-checks a TypeScript user of its declarations, libraries included', async () => {
      await writeFile(
        join(project, 'use.ts'),
        `import { createRateLimitClient, enforceRateLimit, type Decision, type RateLimitClientOptions } from '@portcullis/ratelimit-client';
import pino from 'pino';

const options: RateLimitClientOptions = { target: '127.0.0.1:1', timeoutMs: 10, failureMode: 'deny', log: pino() };
const client = createRateLimitClient(options);
export const decision: Promise<Decision> = client.decide({ domain: 'd', descriptors: [] });
export const outcome: Promise<'allowed' | 'limited' | 'unavailable'> = enforceRateLimit(client, { domain: 'd', descriptors: [] }).then((e) => e.outcome);
// @ts-expect-error failureMode is 'allow' or 'deny'
createRateLimitClient({ ...options, failureMode: 'open' });
`,
      );
      const tsc = join(repo, 'node_modules/typescript/bin/tsc');
      const result = await run(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          'false',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--typeRoots',
          join(repo, 'node_modules/@types'),
          '--types',
          'node',
          'use.ts',
        ],
        { cwd: project },
      ).catch((e: unknown) => e as { stdout: string; code: number });
      expect('stdout' in result ? result.stdout : '').toBe('');
    }, 180_000);
  });

  describe('@portcullis/inbox-cli', () => {
    let inbox: InboxApp;
    let target: Server;
    const received: Array<{ url: string; body: string }> = [];

    beforeAll(async () => {
      inbox = await startInbox(
        loadInboxSettings({
          INBOX_HOST: '127.0.0.1',
          INBOX_PORT: '0',
          INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE: '0',
          INBOX_FALLBACK_CAPTURE_PER_MINUTE: '0',
        }),
        { log },
      );
      target = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          received.push({ url: req.url ?? '', body });
          res.writeHead(202).end();
        });
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await inbox.close();
      await new Promise((resolve) => target.close(resolve));
    });

    const cli = (args: readonly string[]) =>
      run(bin('portcullis-inbox'), [...args], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', INBOX_CONFIG: join(scratch, 'inbox.json') },
      });

    it('runs the installed command: --help names the commands its README describes', async () => {
      const { stdout } = await cli(['--help']);
      const readme = await readFile(join(project, 'node_modules/@portcullis/inbox-cli/README.md'), 'utf8');
      const usage = /## Usage\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
      const commands = [...usage.matchAll(/^\| `(\w+)` +\|/gm)].map((m) => m[1] ?? '');
      expect(commands).toEqual(['forward', 'tail', 'replay']);
      for (const command of commands) expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    });

    it('replays a request captured by a real inbox to a local target', async () => {
      const host = `http://127.0.0.1:${inbox.port}`;
      const created = (await (await fetch(`${host}/api/endpoints`, { method: 'POST' })).json()) as {
        id: string;
        token: string;
      };
      const captured = (await (
        await fetch(`${host}/api/hook/${created.id}/orders?x=1`, { method: 'POST', body: 'order 42' })
      ).json()) as { requestId: string };
      const { port } = target.address() as AddressInfo;
      const { stdout, stderr } = await cli([
        'replay',
        created.id,
        '--request',
        captured.requestId,
        '--to',
        `http://127.0.0.1:${port}/hooks`,
        '--token',
        created.token,
        '--host',
        host,
      ]);
      expect(stderr).toBe('');
      expect(stdout).toContain('POST /orders?x=1 → 202');
      expect(received).toEqual([{ url: '/hooks/orders?x=1', body: 'order 42' }]);
    }, 60_000);
  });
});

describe('publish-npm.sh', () => {
  const publish = (tag: string, dir: string, env: Record<string, string> = {}) =>
    run('bash', [join(repo, 'hack/release/publish-npm.sh'), tag, dir], { env: { ...cleanEnv, ...env } }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: unknown) => e as { code: number; stdout: string; stderr: string },
    );

  it('dry-runs the publish of both packages without NPM_PUBLISH=1', async () => {
    const result = await publish(`v${version}`, join(scratch, 'build'));
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      `@portcullis/inbox-cli@${version}`,
      `@portcullis/ratelimit-client@${version}`,
    ]);
    expect(result.stderr).toContain('with tag latest and public access (dry-run)');
  }, 60_000);

  it('rehearses a pre-release tag even with NPM_PUBLISH=1, under the dist-tag next', async () => {
    const rc = join(scratch, 'rc');
    for (const { spec, dir } of built) {
      await cp(dir, join(rc, spec.folder), { recursive: true });
      const file = join(rc, spec.folder, 'package.json');
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { version: string };
      await writeFile(file, JSON.stringify({ ...manifest, version: `${version}-rc.1` }));
    }
    const result = await publish(`v${version}-rc.1`, rc, { NPM_PUBLISH: '1' });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/with tag next and public access \(dry-run\)/g)).toHaveLength(2);
  }, 60_000);

  it("refuses a tag other than the packages' version, and what is not a version tag", async () => {
    const dir = join(scratch, 'build');
    const other = await publish('v99.0.0', dir);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `publish-npm: ${dir}/inbox-cli/package.json is @portcullis/inbox-cli@${version}, the tag is v99.0.0`,
    );
    const latest = await publish('latest', dir);
    expect(latest.code).toBe(2);
    expect(latest.stderr).toContain('publish-npm: latest is not a version tag');
  });
});
