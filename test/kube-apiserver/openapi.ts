import { createHash } from 'node:crypto';
import type { ResourceRegistry } from './registry.js';
import type { JsonObject, ResourceDef } from './types.js';

/**
 * A minimal OpenAPI v3 tree. kubectl reads it to learn that PATCH takes `fieldValidation` (so it
 * leaves validation to the server and skips the protobuf /openapi/v2 download) and which patch
 * types each kind accepts; CR schemas go in `components` for `kubectl explain`.
 */

function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

export function openApiIndex(registry: ResourceRegistry): JsonObject {
  const gvs = new Map<string, [string, string]>();
  for (const def of registry.all())
    gvs.set(groupVersionPath(def.group, def.version), [def.group, def.version]);
  const paths: JsonObject = {};
  for (const [path, [group, version]] of [...gvs.entries()].sort()) {
    const hash = documentHash(openApiDocument(registry, group, version));
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

/** The document for `/openapi/v3/apis/<group>/<version>` (or `/api/v1`), or undefined. */
export function openApiDocumentForPath(registry: ResourceRegistry, path: string): JsonObject | undefined {
  const m = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!m) return undefined;
  const group = m[1] ? '' : (m[2] ?? '');
  const version = m[1] ?? m[3] ?? '';
  if (registry.inGroupVersion(group, version).length === 0) return undefined;
  return openApiDocument(registry, group, version);
}

function openApiDocument(registry: ResourceRegistry, group: string, version: string): JsonObject {
  const paths: JsonObject = {};
  const schemas: JsonObject = {};
  for (const def of registry.inGroupVersion(group, version)) {
    const prefix = `/${groupVersionPath(group, version)}${def.namespaced ? '/namespaces/{namespace}' : ''}/${def.plural}`;
    paths[`${prefix}/{name}`] = { patch: patchOperation(def) };
    if (def.schema) {
      const id = `${group.split('.').reverse().join('.')}.${version}.${def.kind}`;
      schemas[id] = { ...def.schema, 'x-kubernetes-group-version-kind': [gvk(def)] };
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0' },
    paths,
    components: { schemas },
  };
}

function gvk(def: ResourceDef): JsonObject {
  return { group: def.group, version: def.version, kind: def.kind };
}

function patchOperation(def: ResourceDef): JsonObject {
  const body = { schema: { type: 'object' } };
  const content: JsonObject = {
    'application/json-patch+json': body,
    'application/merge-patch+json': body,
  };
  return {
    operationId: `patch${def.kind}`,
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': gvk(def),
    parameters: ['dryRun', 'fieldManager', 'fieldValidation', 'force'].map((name) => ({
      name,
      in: 'query',
      schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
    })),
    requestBody: { content, required: true },
    responses: { '200': { description: 'OK' } },
  };
}

function documentHash(doc: JsonObject): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 128).toUpperCase();
}
