// `npm run build:web`: bundles the web inspector (services/inbox/web) into static files the inbox serves
// (web-routes.ts): `index.html` and content-hashed `assets/*.js|css`, each with `.br` and `.gz` siblings.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const WEB_ROOT = fileURLToPath(new URL('../../web', import.meta.url));
export const DEFAULT_WEB_DIR = join(WEB_ROOT, 'dist');

export interface BuiltInspector {
  /** Asset file names, e.g. `main-4F2K7QZP.js`. */
  script: string;
  stylesheet: string;
  /** Bytes of each asset before compression. */
  sizes: Record<string, number>;
}

export async function buildInspector(outDir: string = DEFAULT_WEB_DIR): Promise<BuiltInspector> {
  await rm(outDir, { recursive: true, force: true });
  const assetsDir = join(outDir, 'assets');
  const result = await build({
    entryPoints: [join(WEB_ROOT, 'src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: assetsDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
  const script = outputs.find((n) => n.endsWith('.js'));
  const stylesheet = outputs.find((n) => n.endsWith('.css'));
  if (!script || !stylesheet)
    throw new Error(`inspector build: expected a .js and a .css, got ${outputs.join(', ')}`);
  const template = await readFile(join(WEB_ROOT, 'index.html'), 'utf8');
  const html = template
    .replace('{{script}}', `/assets/${script}`)
    .replace('{{stylesheet}}', `/assets/${stylesheet}`);
  await writeFile(join(outDir, 'index.html'), html);
  const sizes: Record<string, number> = {};
  for (const path of [join(outDir, 'index.html'), join(assetsDir, script), join(assetsDir, stylesheet)]) {
    const bytes = await readFile(path);
    sizes[basename(path)] = bytes.length;
    await writeFile(`${path}.gz`, gzipSync(bytes, { level: 9 }));
    await writeFile(
      `${path}.br`,
      brotliCompressSync(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      }),
    );
  }
  return { script, stylesheet, sizes };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outDir = process.argv[2] ?? DEFAULT_WEB_DIR;
  await mkdir(outDir, { recursive: true });
  const built = await buildInspector(outDir);
  process.stdout.write(`inspector built in ${outDir}: ${JSON.stringify(built.sizes)}\n`);
}
