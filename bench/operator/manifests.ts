import { rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The domain (and resource name) of the i-th benchmark resource: `bench-0001`… */
export function domainOf(i: number, count: number): string {
  return `bench-${String(i + 1).padStart(String(count).length, '0')}`;
}

/** One RateLimitConfig per entry of `requestsPerUnit`, as one multi-document YAML file. */
export function renderManifests(requestsPerUnit: readonly number[]): string {
  return requestsPerUnit
    .map((rpu, i) => {
      const name = domainOf(i, requestsPerUnit.length);
      return [
        'apiVersion: portcullis.dev/v1alpha1',
        'kind: RateLimitConfig',
        'metadata:',
        `  name: ${name}`,
        '  namespace: default',
        'spec:',
        `  domain: ${name}`,
        '  descriptors:',
        '    - key: client',
        '      rate_limit:',
        '        unit: second',
        `        requests_per_unit: ${rpu}`,
        '',
      ].join('\n');
    })
    .join('---\n');
}

/**
 * The manifests file in the watched directory, replaced atomically: each version is written in full to a
 * staging directory on the same file system (outside the watched one), then renamed into the watched
 * directory, so the operator never reads half a file. Each version gets a new name and the previous one is
 * removed right after: on Linux, Node 20's recursive `fs.watch` (the directory source's) reports a rename
 * over an existing file once, then never again, so renaming over one name would leave the operator
 * unaware of every later edit. The newer name sorts last, so a reload between the two steps still sees
 * the new values (same resource names, the later file wins).
 */
export class ManifestFile {
  private version = 0;
  private published: string | undefined;

  constructor(private readonly o: { manifestsDir: string; stagingDir: string }) {}

  private name(version: number): string {
    return `bench-${String(version).padStart(6, '0')}.yaml`;
  }

  /** Writes the next version next to the watched directory; `publish` moves it in. */
  async stage(requestsPerUnit: readonly number[]): Promise<void> {
    this.version++;
    await writeFile(join(this.o.stagingDir, this.name(this.version)), renderManifests(requestsPerUnit));
  }

  /** Renames the staged version into the watched directory, then removes the previous one. */
  async publish(): Promise<void> {
    const name = this.name(this.version);
    await rename(join(this.o.stagingDir, name), join(this.o.manifestsDir, name));
    const previous = this.published;
    this.published = name;
    if (previous !== undefined && previous !== name) await unlink(join(this.o.manifestsDir, previous));
  }

  /** Removes the published version, leaving the watched directory empty. */
  async remove(): Promise<void> {
    if (this.published === undefined) return;
    await unlink(join(this.o.manifestsDir, this.published));
    this.published = undefined;
  }
}
