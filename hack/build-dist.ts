// `npm run build:dist [outDir]`: what the container images run. Each entry point becomes one ES module with
// the workspace code (@portcullis/*, TypeScript) bundled in, so no TypeScript runtime is needed; every other
// package stays an import, resolved from the production node_modules next to it. The inbox's web inspector
// is built beside them (`inbox-web/`).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { buildInspector } from '@portcullis/inbox/inspector';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Bundle name → entry point. */
export const ENTRIES: Readonly<Record<string, string>> = {
  operator: 'operator/src/main.ts',
  ratelimit: 'services/ratelimit/src/main.ts',
  'ratelimit-client': 'services/ratelimit/src/cli/ratelimit-client.ts',
  gateway: 'services/gateway/src/main.ts',
  inbox: 'services/inbox/src/main.ts',
  'inbox-worker': 'services/inbox/src/worker-main.ts',
};

/** Third-party packages stay imports: they are installed (`npm ci --omit=dev`) where the bundles run. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@portcullis/') ? undefined : { path: args.path, external: true },
    );
  },
};

export interface BuiltDist {
  /** Bundle file → the packages it imports (they must be production dependencies). */
  imports: Record<string, string[]>;
}

export async function buildDist(outDir: string): Promise<BuiltDist> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: Object.fromEntries(
      Object.entries(ENTRIES).map(([name, entry]) => [name, join(ROOT, entry)]),
    ),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    plugins: [externalPackages],
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  // the bundles are ES modules whatever package.json is (or is not) beside them
  await writeFile(join(outDir, 'package.json'), '{"type":"module"}\n');
  await buildInspector(join(outDir, 'inbox-web'));
  const imports: Record<string, string[]> = {};
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!file.endsWith('.mjs')) continue;
    imports[basename(file)] = [
      ...new Set(output.imports.filter((i) => i.external).map((i) => i.path)),
    ].sort();
  }
  return { imports };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outDir = process.argv[2] ?? join(ROOT, 'dist');
  const { imports } = await buildDist(outDir);
  process.stdout.write(`built ${Object.keys(imports).join(', ')} in ${outDir}\n`);
}
