// `npx tsx hack/release/build-npm-packages.ts [outDir]` (default dist/npm): the two packages published to npm,
// each a folder ready for `npm pack` / `npm publish`. The workspaces stay private (their package.json points at
// TypeScript sources and at other private workspaces); what is published is generated here: one ES module with
// the @portcullis/* code bundled in, the third-party packages it imports as dependencies with the ranges the
// workspaces declare, the `.proto` files it loads (found beside the bundle, lib/protos), a package.json whose
// version is the project's (hack/release/versions.ts), the package's README and the LICENSE.
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundleTypes } from './bundle-types.js';
import { listWorkspaces, readProjectVersion } from './versions.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPOSITORY = 'https://github.com/portcullis-dev/portcullis';

export interface NpmPackageSpec {
  /** The folder under the build directory, and the tarball's base name. */
  folder: string;
  name: string;
  description: string;
  /** The workspace the code comes from: `repository.directory`. */
  workspace: string;
  /** TypeScript entry point, relative to the repository. */
  entry: string;
  /** The published README, relative to the repository. */
  readme: string;
  /** A library: `index.mjs` with `index.d.ts`. A command: `bin/<bin>.mjs`, run by Node. */
  kind: { library: true } | { bin: string };
  /** Ships the `.proto` files of the repository's `protos/` beside the bundle. */
  protos: boolean;
}

export const NPM_PACKAGES: readonly NpmPackageSpec[] = [
  {
    folder: 'ratelimit-client',
    name: '@portcullis/ratelimit-client',
    description:
      'gRPC client of the Envoy rate-limit service (RLS v3 ShouldRateLimit): failure modes, batching, an in-process fallback limiter, RateLimit-* headers.',
    workspace: 'lib/ratelimit-client',
    entry: 'lib/ratelimit-client/src/index.ts',
    readme: 'lib/ratelimit-client/npm/README.md',
    kind: { library: true },
    protos: true,
  },
  {
    folder: 'inbox-cli',
    name: '@portcullis/inbox-cli',
    description:
      'Command line of the Portcullis webhook inbox: forward captures to a local URL, tail an endpoint, replay a request byte for byte.',
    workspace: 'services/inbox',
    entry: 'services/inbox/src/cli/main.ts',
    readme: 'services/inbox/npm/README.md',
    kind: { bin: 'portcullis-inbox' },
    protos: false,
  },
];

export interface BuiltNpmPackage {
  spec: NpmPackageSpec;
  /** The folder to pack. */
  dir: string;
  manifest: Record<string, unknown>;
}

interface Manifest {
  dependencies?: Record<string, string>;
  engines?: Record<string, string>;
  license?: string;
}

const readManifest = async (dir: string): Promise<Manifest> =>
  JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The range each of `workspaces` declares for each third-party dependency; two of them declaring different
 * ranges for one package is an error (which would the package need?).
 */
async function declaredRanges(workspaces: readonly string[]): Promise<Map<string, string>> {
  const ranges = new Map<string, { range: string; by: string }>();
  for (const dir of workspaces) {
    for (const [name, range] of Object.entries((await readManifest(dir)).dependencies ?? {})) {
      const seen = ranges.get(name);
      if (seen !== undefined && seen.range !== range) {
        throw new Error(`${dir}/package.json: ${name} ${range}, but ${seen.by}/package.json: ${seen.range}`);
      }
      ranges.set(name, { range, by: dir });
    }
  }
  return new Map([...ranges].map(([name, { range }]) => [name, range]));
}

const RESOLVING = Symbol('resolving');

/**
 * Workspace code is bundled; every other package is imported from the package's dependencies. The workspace
 * modules have no side effects on import (none is imported for its effect alone), so what a package does not
 * use goes, its imports with it: the client does not pull in fastify through lib/kit's index.
 */
const bundleWorkspaces: Plugin = {
  name: 'bundle-workspaces',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === RESOLVING) return undefined;
      const bare = /^[^./]/.test(args.path);
      if (bare && !args.path.startsWith('@portcullis/')) return { path: args.path, external: true };
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: RESOLVING,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, sideEffects: false };
    });
  },
};

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

async function buildOne(spec: NpmPackageSpec, dir: string, version: string): Promise<BuiltNpmPackage> {
  const outfile = 'library' in spec.kind ? join(dir, 'index.mjs') : join(dir, 'bin', `${spec.kind.bin}.mjs`);
  const result = await build({
    entryPoints: [join(ROOT, spec.entry)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outfile,
    plugins: [bundleWorkspaces],
    // paths in the bundle's comments are the repository's, never this machine's
    absWorkingDir: ROOT,
    metafile: true,
    logLevel: 'warning',
    ...('bin' in spec.kind ? { banner: { js: '#!/usr/bin/env node' } } : {}),
  });
  // the workspaces whose code the bundle holds: they declare what it imports, and hold its types
  const workspaces = listWorkspaces(ROOT).filter((dir) =>
    Object.keys(result.metafile.inputs).some((input) => input.startsWith(`${dir}/`)),
  );
  const typesFile = join(dir, 'index.d.ts');
  if ('library' in spec.kind) {
    await bundleTypes({ root: ROOT, entry: spec.entry, workspaces, outFile: typesFile });
  }
  // what the bundle imports at run time, and what its declarations import (pino's Logger) for type checks
  const specifiers = [
    ...Object.values(result.metafile.outputs)
      .flatMap((o) => o.imports)
      .filter((i) => i.external)
      .map((i) => i.path),
    ...('library' in spec.kind
      ? [...(await readFile(typesFile, 'utf8')).matchAll(/^import .* from '([^']+)';$/gm)].map(
          (m) => m[1] ?? '',
        )
      : []),
  ];
  const builtins = new Set(builtinModules);
  const imported = new Set(
    specifiers.filter((s) => !s.startsWith('node:') && !builtins.has(s)).map(packageOf),
  );
  const ranges = await declaredRanges(workspaces);
  const dependencies: Record<string, string> = {};
  for (const name of [...imported].sort()) {
    const range = ranges.get(name);
    if (range === undefined)
      throw new Error(`${spec.name}: imports ${name}, which none of ${workspaces.join(', ')} declares`);
    dependencies[name] = range;
  }
  if (spec.protos) {
    const protos = join(ROOT, 'protos');
    for (const file of (await listFiles(protos)).filter((f) => f.endsWith('.proto'))) {
      await mkdir(dirname(join(dir, 'protos', file)), { recursive: true });
      await copyFile(join(protos, file), join(dir, 'protos', file));
    }
  }
  await copyFile(join(ROOT, spec.readme), join(dir, 'README.md'));
  await copyFile(join(ROOT, 'LICENSE'), join(dir, 'LICENSE'));

  const root = await readManifest('.');
  const manifest: Record<string, unknown> = {
    name: spec.name,
    version,
    description: spec.description,
    license: root.license,
    repository: { type: 'git', url: `git+${REPOSITORY}.git`, directory: spec.workspace },
    homepage: `${REPOSITORY}/tree/main/${spec.workspace}#readme`,
    bugs: `${REPOSITORY}/issues`,
    type: 'module',
    engines: root.engines,
    ...('library' in spec.kind
      ? { exports: { '.': { types: './index.d.ts', default: './index.mjs' } }, types: './index.d.ts' }
      : { bin: { [spec.kind.bin]: `bin/${spec.kind.bin}.mjs` } }),
    // npm adds package.json, README.md and LICENSE by itself
    files: [
      ...('library' in spec.kind ? ['index.mjs', 'index.d.ts'] : ['bin/']),
      ...(spec.protos ? ['protos/'] : []),
    ],
    dependencies,
    publishConfig: { access: 'public' },
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { spec, dir, manifest };
}

export async function buildNpmPackages(outDir: string): Promise<BuiltNpmPackage[]> {
  await rm(outDir, { recursive: true, force: true });
  const version = readProjectVersion(ROOT);
  const built: BuiltNpmPackage[] = [];
  for (const spec of NPM_PACKAGES) {
    const dir = join(outDir, spec.folder);
    await mkdir(dir, { recursive: true });
    built.push(await buildOne(spec, dir, version));
  }
  return built;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outDir = process.argv[2] ?? join(ROOT, 'dist', 'npm');
  for (const { dir, manifest } of await buildNpmPackages(outDir)) {
    process.stdout.write(`${String(manifest.name)}@${String(manifest.version)} ${dir}\n`);
  }
}
