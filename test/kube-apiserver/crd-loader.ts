import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { isJsonObject } from './types.js';

/** CustomResourceDefinition manifests from YAML or JSON files; other documents are skipped. */

export interface CrdSource {
  /** `file.yaml#2` or `crds[0]`, for error messages. */
  source: string;
  manifest: Record<string, unknown>;
}

export async function loadCrdDirs(dirs: string[]): Promise<CrdSource[]> {
  const found: CrdSource[] = [];
  for (const dir of dirs) {
    const files = (await readdir(dir)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
    for (const file of files) {
      const path = join(dir, file);
      const docs = parseAllDocuments(await readFile(path, 'utf8'));
      docs.forEach((doc, i) => {
        if (doc.errors.length) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
        const manifest: unknown = doc.toJS();
        if (isJsonObject(manifest) && manifest['kind'] === 'CustomResourceDefinition') {
          found.push({ source: docs.length > 1 ? `${path}#${i}` : path, manifest });
        }
      });
    }
  }
  return found;
}
