// One `.d.ts` for a published library: the declarations of its entry point with every type it takes from a
// private workspace (@portcullis/*) inlined, and the packages it depends on left as imports. TypeScript emits
// the declarations of the entry's workspace and of the workspaces it imports (one program), then rollup with
// rollup-plugin-dts joins them, keeping what the entry exports. Joining declarations needs no type checking:
// rollup-plugin-dts given the sources would check lib/kit and all it imports once more. The package test
// type-checks the result in a project that has only the published package installed.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import ts from 'typescript';

export interface TypesBundle {
  root: string;
  /** The TypeScript entry point, relative to `root`. */
  entry: string;
  /** The workspaces (folders relative to `root`) whose types the entry may use. */
  workspaces: readonly string[];
  outFile: string;
}

interface WorkspaceManifest {
  name: string;
  exports?: Record<string, string>;
}

function emitDeclarations(o: TypesBundle, outDir: string, roots: readonly string[]): void {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(o.root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json: not read');
  const program = ts.createProgram([...roots], {
    ...config.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: o.root,
    outDir,
  });
  const { diagnostics } = program.emit();
  if (diagnostics.length > 0) {
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        ...ts.sys,
        getCanonicalFileName: (f) => f,
        getNewLine: () => '\n',
      }),
    );
  }
}

export async function bundleTypes(o: TypesBundle): Promise<void> {
  const outDir = await mkdtemp(join(tmpdir(), 'portcullis-types-'));
  try {
    // package name → its entry's declarations
    const entries = new Map<string, string>();
    const roots = [join(o.root, o.entry)];
    for (const dir of o.workspaces) {
      const manifest = JSON.parse(
        await readFile(join(o.root, dir, 'package.json'), 'utf8'),
      ) as WorkspaceManifest;
      const source = manifest.exports?.['.'];
      if (source === undefined) continue;
      roots.push(join(o.root, dir, source));
      entries.set(manifest.name, join(outDir, dir, source.replace(/\.ts$/, '.d.ts')));
    }
    emitDeclarations(o, outDir, roots);
    const bundle = await rollup({
      input: join(outDir, o.entry.replace(/\.ts$/, '.d.ts')),
      plugins: [
        { name: 'workspace-declarations', resolveId: (source) => entries.get(source) ?? null },
        dts(),
      ],
      // lib/kit's index reaches modules the client never uses, which import Node's own modules and packages the
      // client does not depend on: none of their types reaches the output (the package test checks its imports)
      onLog(level, log, handler) {
        if (log.code === 'UNRESOLVED_IMPORT') return;
        handler(level, log);
      },
    });
    try {
      await bundle.write({ file: o.outFile, format: 'es' });
    } finally {
      await bundle.close();
    }
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
