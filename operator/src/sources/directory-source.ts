import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Logger } from '@portcullis/kit';
import { API_VERSION, KINDS, isKind, type Kind } from '@portcullis/config';
import type { Resource } from '../resources.js';
import type { ResourceStore } from '../store.js';
import type { ResourceSource } from './types.js';
import { describeYamlErrors } from './yaml-problems.js';

const MANIFEST = /\.(ya?ml|json)$/;

/** What one file holds: custom resources, and Secrets by `namespace/name`. */
interface Manifests {
  resources: Resource[];
  secrets: Map<string, Map<string, Buffer>>;
}

interface Seen {
  specHash: string;
  generation: number;
  createdAt: string;
}

/**
 * Local mode: the custom resources are the `portcullis.dev/v1alpha1` objects in the YAML (or JSON) files
 * under a directory, read again on any change. What the API server would add is made up the same way:
 * a stable uid, a creation time (first seen), and a generation that grows when the spec changes. Core
 * `v1` Secrets among them are what InboxEndpoints' `secretRef`s name. A file that does not parse keeps its
 * previous objects and is logged.
 */
export class DirectorySource implements ResourceSource {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly byFile = new Map<string, Manifests>();
  private readonly seen = new Map<string, Seen>();
  private synced = false;
  private closed = false;
  private readonly log: Logger;

  constructor(private readonly o: { dir: string; store: ResourceStore; log: Logger; now?: () => Date }) {
    this.log = o.log.child({ component: 'directory-source' });
  }

  async start(): Promise<void> {
    await this.load();
    this.synced = true;
  }

  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.synced = false;
    return Promise.resolve();
  }

  isSynced(): boolean {
    return this.synced;
  }

  private async load(): Promise<void> {
    const { files, dirs } = await listTree(this.o.dir);
    this.rewatch(dirs);
    for (const file of [...this.byFile.keys()]) if (!files.includes(file)) this.byFile.delete(file);
    for (const file of files) {
      try {
        this.byFile.set(file, this.read(relative(this.o.dir, file), await readFile(file, 'utf8')));
      } catch (err: unknown) {
        this.log.error({ file, err }, 'manifest not read, keeping its previous objects');
      }
    }
    const all = [...this.byFile.values()].flatMap((m) => m.resources);
    for (const kind of KINDS)
      this.o.store.replaceAll(
        kind,
        all.filter((r) => r.kind === kind),
      );
    const secrets = new Map([...this.byFile.values()].flatMap((m) => [...m.secrets]));
    this.o.store.replaceSecrets(secrets);
    this.log.info({ files: files.length, resources: all.length, secrets: secrets.size }, 'manifests loaded');
  }

  /**
   * One plain watch per directory, renewed after every load. (Node 20's recursive watch on Linux stops
   * reporting a file after it has been replaced by a rename, which is how editors and atomic writers save.)
   */
  private rewatch(dirs: readonly string[]): void {
    if (this.closed) return;
    for (const w of this.watchers) w.close();
    this.watchers = dirs.map((d) => {
      const w = watch(d, () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.load(), 100);
      });
      w.on('error', (err) => this.log.warn({ err, dir: d }, 'watching the manifests failed'));
      return w;
    });
  }

  private read(file: string, text: string): Manifests {
    const docs = parseAllDocuments(text);
    const errors = (Array.isArray(docs) ? docs : [docs]).flatMap((d) => d.errors);
    if (errors.length > 0) throw new Error(describeYamlErrors(file, errors));
    const out: Manifests = { resources: [], secrets: new Map() };
    for (const doc of Array.isArray(docs) ? docs : []) {
      const o = doc.toJS() as {
        apiVersion?: unknown;
        kind?: unknown;
        metadata?: { name?: unknown; namespace?: unknown };
        spec?: unknown;
        data?: unknown;
        stringData?: unknown;
      } | null;
      const secret = o?.apiVersion === 'v1' && o.kind === 'Secret';
      if (!o || (!secret && (o.apiVersion !== API_VERSION || !isKind(o.kind)))) continue;
      const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
      if (name === '') {
        this.log.warn({ file, kind: o.kind }, 'manifest without metadata.name ignored');
        continue;
      }
      const namespace = typeof o.metadata?.namespace === 'string' ? o.metadata.namespace : 'default';
      if (secret)
        out.secrets.set(`${namespace}/${name}`, secretData(`${file}: Secret ${namespace}/${name}`, o));
      else if (isKind(o.kind)) out.resources.push(this.resource(o.kind, { name, namespace, spec: o.spec }));
    }
    return out;
  }

  private resource(kind: Kind, o: { name: string; namespace: string; spec: unknown }): Resource {
    const key = `${kind}/${o.namespace}/${o.name}`;
    const specHash = createHash('sha256')
      .update(JSON.stringify(o.spec ?? null))
      .digest('hex');
    const before = this.seen.get(key);
    const seen: Seen = before
      ? {
          ...before,
          generation: before.specHash === specHash ? before.generation : before.generation + 1,
          specHash,
        }
      : { specHash, generation: 1, createdAt: (this.o.now?.() ?? new Date()).toISOString() };
    this.seen.set(key, seen);
    return {
      apiVersion: API_VERSION,
      kind,
      metadata: {
        name: o.name,
        namespace: o.namespace,
        uid: createHash('sha256').update(key).digest('hex').slice(0, 32),
        generation: seen.generation,
        creationTimestamp: seen.createdAt,
      },
      spec: o.spec,
    };
  }
}

/**
 * A Secret manifest's keys as the API server would store them: `data` is base64, `stringData` is text and
 * wins over `data` for the same key. Anything else fails the file, which then keeps its previous objects.
 */
function secretData(where: string, o: { data?: unknown; stringData?: unknown }): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const entries = (field: 'data' | 'stringData'): Array<[string, unknown]> => {
    const v = o[field];
    if (v === undefined || v === null) return [];
    if (typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: ${field} is not a mapping`);
    return Object.entries(v);
  };
  for (const [key, value] of entries('data')) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
    if (!bytes || bytes.toString('base64') !== value) throw new Error(`${where}: data.${key} is not base64`);
    out.set(key, bytes);
  }
  for (const [key, value] of entries('stringData')) {
    if (typeof value !== 'string') throw new Error(`${where}: stringData.${key} is not text`);
    out.set(key, Buffer.from(value, 'utf8'));
  }
  return out;
}

async function listTree(dir: string): Promise<{ files: string[]; dirs: string[] }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const visible = entries.filter((e) => !e.name.startsWith('.'));
  return {
    files: visible
      .filter((e) => e.isFile() && MANIFEST.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .sort(),
    dirs: [dir, ...visible.filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name))],
  };
}
