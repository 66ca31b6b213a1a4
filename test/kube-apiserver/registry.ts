import { crdToDefs } from './crd.js';
import type { KubeObject, ResourceDef } from './types.js';

/** Which group/version/resources are served: the built-ins plus one entry per served CRD version. */
export class ResourceRegistry {
  private readonly defs = new Map<string, ResourceDef>();
  private readonly byCrd = new Map<string, string[]>();

  constructor(private readonly builtins: ResourceDef[]) {
    for (const def of builtins) this.defs.set(defKey(def.group, def.version, def.plural), def);
  }

  find(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.defs.get(defKey(group, version, plural));
  }

  all(): ResourceDef[] {
    return [...this.defs.values()];
  }

  /** Served versions of each group, preferred (highest Kubernetes version priority) first. */
  groups(): { name: string; versions: string[] }[] {
    const byGroup = new Map<string, Set<string>>();
    for (const def of this.defs.values()) {
      if (def.group === '') continue;
      let versions = byGroup.get(def.group);
      if (!versions) byGroup.set(def.group, (versions = new Set()));
      versions.add(def.version);
    }
    return [...byGroup.entries()].map(([name, versions]) => ({
      name,
      versions: [...versions].sort(compareVersions),
    }));
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /** Registers (or re-registers, after an update) the resources a CRD serves. */
  applyCrd(crd: KubeObject): void {
    this.removeCrd(crd);
    const keys: string[] = [];
    for (const def of crdToDefs(crd)) {
      const key = defKey(def.group, def.version, def.plural);
      this.defs.set(key, def);
      keys.push(key);
    }
    this.byCrd.set(crd.metadata.name ?? '', keys);
  }

  removeCrd(crd: KubeObject): void {
    for (const key of this.byCrd.get(crd.metadata.name ?? '') ?? []) this.defs.delete(key);
    this.byCrd.delete(crd.metadata.name ?? '');
  }

  /** Back to the built-ins only. */
  reset(): void {
    this.defs.clear();
    this.byCrd.clear();
    for (const def of this.builtins) this.defs.set(defKey(def.group, def.version, def.plural), def);
  }
}

function defKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** Kubernetes version priority: GA before beta before alpha, higher numbers first, others last by name. */
export function compareVersions(a: string, b: string): number {
  return versionRank(b) - versionRank(a) || (a < b ? -1 : a > b ? 1 : 0);
}

function versionRank(version: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return -1;
  const major = Number(m[1]);
  const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  return stability * 1e6 + major * 1e3 + minor;
}
