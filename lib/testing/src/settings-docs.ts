// Checks a README's settings table against the settings reader: every variable read is documented, every
// documented one is read, and each is spelled whole in a quoted literal of the source, so a grep for a name
// finds its reader and no name is built from a prefix.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvSource } from '@portcullis/kit';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const NAME = /^[A-Z][A-Z0-9_]*$/;
const FAMILY = /^([A-Z][A-Z0-9_]*_)\*$/;

/** The source of every lib but this one: where shared readers (`readHttpTimeouts`, …) live. */
export const LIB_SOURCE_DIRS: readonly string[] = readdirSync(join(ROOT, 'lib'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'testing')
  .map((e) => join(ROOT, 'lib', e.name, 'src'));

export interface SettingsDocsOptions {
  /** Path of the README; its `## <heading>` section holds the table, variables back-quoted in the first column. */
  readme: string;
  heading?: string;
  /** Reads the settings; called once per environment of `envs`, recording every name it looks up. */
  load: (env: EnvSource) => unknown;
  /** Environments that reach names read only in some modes; `{}` alone by default. */
  envs?: readonly EnvSource[];
  /** Directories whose `.ts` files (tests aside) must spell each name whole. */
  sources: readonly string[];
  /** Prefixes of names a reader still builds, exempt from the spelling check. */
  builtFromPrefix?: readonly string[];
}

/** Every disagreement, one line each; empty when docs, reader and source agree. */
export function checkSettingsDocs(o: SettingsDocsOptions): string[] {
  const heading = o.heading ?? 'Settings';
  const table = readTableNames(readFileSync(o.readme, 'utf8'), heading);
  const read = recordEnvNames(o.load, o.envs ?? [{}]);
  const spelled = readQuotedNames(o.sources);
  const isInFamily = (name: string): boolean => table.families.some((f) => name.startsWith(f));
  const isBuilt = (name: string): boolean => (o.builtFromPrefix ?? []).some((p) => name.startsWith(p));
  const problems: string[] = [];
  for (const name of [...read].sort()) {
    if (!table.names.has(name) && !isInFamily(name)) {
      problems.push(`${name}: read, but not in the ${heading} table`);
    }
  }
  for (const name of [...table.names].sort()) {
    if (!read.has(name)) problems.push(`${name}: in the ${heading} table, but never read`);
  }
  for (const name of [...new Set([...read, ...table.names])].sort()) {
    if (!spelled.has(name) && !isBuilt(name)) problems.push(`${name}: no quoted literal spells it whole`);
  }
  return problems;
}

/** The back-quoted names in the first column of the table under `## <heading>`; `X_*` cells are families. */
export function readTableNames(
  markdown: string,
  heading: string,
): { names: Set<string>; families: string[] } {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${heading}`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,2} /.test(l));
  const names = new Set<string>();
  const families: string[] = [];
  for (const line of lines.slice(start + 1, end < 0 ? undefined : end)) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1] ?? '';
    for (const [, token = ''] of cell.matchAll(/`([^`]+)`/g)) {
      const family = FAMILY.exec(token)?.[1];
      if (family) families.push(family);
      else if (NAME.test(token)) names.add(token);
    }
  }
  return { names, families };
}

/** Every variable name `load` looks up in any of `envs`. */
export function recordEnvNames(load: (env: EnvSource) => unknown, envs: readonly EnvSource[]): Set<string> {
  const names = new Set<string>();
  for (const env of envs) {
    const recording = new Proxy(env, {
      get(target, key) {
        if (typeof key === 'string') names.add(key);
        return Reflect.get(target, key) as unknown;
      },
    });
    load(recording);
  }
  return names;
}

function readQuotedNames(dirs: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const dir of dirs) {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('node_modules'),
    );
    for (const file of files) {
      for (const [, name = ''] of readFileSync(join(dir, file), 'utf8').matchAll(/'([A-Z][A-Z0-9_]*)'/g)) {
        names.add(name);
      }
    }
  }
  return names;
}
