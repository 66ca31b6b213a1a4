import type { ResourceRegistry } from './registry.js';
import type { JsonObject, ResourceDef } from './types.js';

/** Legacy and aggregated (apidiscovery.k8s.io/v2) discovery documents, plus `/version`. */

export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' };

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

export function versionInfo(): JsonObject {
  return {
    ...KUBERNETES_VERSION,
    gitVersion: `${KUBERNETES_VERSION.gitVersion}-portcullis-test`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(name: string, versions: string[]): JsonObject {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: ResourceRegistry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupDocument(g.name, g.versions)),
  };
}

export function apiGroup(registry: ResourceRegistry, group: string): JsonObject | undefined {
  const found = registry.groups().find((g) => g.name === group);
  return found && { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(found.name, found.versions) };
}

export function apiResourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): JsonObject | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const def of defs) {
    const entry: JsonObject = {
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: VERBS,
    };
    if (def.shortNames.length) entry['shortNames'] = def.shortNames;
    if (def.categories.length) entry['categories'] = def.categories;
    resources.push(entry);
    if (def.hasStatus) {
      resources.push({
        name: `${def.plural}/status`,
        singularName: '',
        namespaced: def.namespaced,
        kind: def.kind,
        verbs: STATUS_VERBS,
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

export const DISCOVERY_V2_CONTENT_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** Aggregated discovery for `/api` (`core: true`) or `/apis`, which kubectl 1.30+ asks for first. */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean): JsonObject {
  const groups = core ? [{ name: '', versions: ['v1'] }] : registry.groups();
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: registry.inGroupVersion(g.name, version).map(resourceDiscovery),
        freshness: 'Current',
      })),
    })),
  };
}

function resourceDiscovery(def: ResourceDef): JsonObject {
  const responseKind = { group: def.group, version: def.version, kind: def.kind };
  const entry: JsonObject = {
    resource: def.plural,
    responseKind,
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: VERBS,
  };
  if (def.shortNames.length) entry['shortNames'] = def.shortNames;
  if (def.categories.length) entry['categories'] = def.categories;
  if (def.hasStatus) entry['subresources'] = [{ subresource: 'status', responseKind, verbs: STATUS_VERBS }];
  return entry;
}
