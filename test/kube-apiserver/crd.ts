import { findCelCompileErrors } from './cel-rules.js';
import { NAME_COLUMN } from './columns.js';
import { invalid, notSupported, required } from './field-errors.js';
import { formatTime } from './micro-time.js';
import {
  isJsonObject,
  type FieldError,
  type JsonObject,
  type JsonSchemaProps,
  type KindHooks,
  type KubeObject,
  type PrinterColumn,
  type ResourceDef,
} from './types.js';

/** CustomResourceDefinition manifests → served resources, plus the CRD kind's own defaulting and checks. */

interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: JsonSchemaProps };
  subresources?: { status?: JsonObject };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
}

function crdSpec(crd: KubeObject): CrdSpec {
  return isJsonObject(crd['spec']) ? crd['spec'] : {};
}

/** An empty `additionalPrinterColumns` serves Age, as `serveDefaultColumnsIfEmpty` does. */
const DEFAULT_COLUMNS: PrinterColumn[] = [
  {
    name: 'Age',
    type: 'date',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
    jsonPath: '.metadata.creationTimestamp',
  },
];

export function crdStorageKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

/** One definition per served version; objects are stored once, at the storage version. */
export function crdToDefs(crd: KubeObject): ResourceDef[] {
  const s = crdSpec(crd);
  const group = s.group ?? '';
  const names = s.names ?? {};
  const plural = names.plural ?? '';
  const kind = names.kind ?? '';
  const storageVersion = s.versions?.find((v) => v.storage)?.name ?? '';
  return (s.versions ?? [])
    .filter((v) => v.served !== false)
    .map((v) => ({
      group,
      version: v.name ?? '',
      plural,
      singular: names.singular ?? kind.toLowerCase(),
      kind,
      listKind: names.listKind ?? `${kind}List`,
      namespaced: s.scope !== 'Cluster',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      storageKey: crdStorageKey(group, plural),
      hasStatus: v.subresources?.status !== undefined,
      hasGeneration: true,
      requireResourceVersion: true,
      isCustom: true,
      nameRule: 'subdomain',
      columns: [
        NAME_COLUMN,
        ...(v.additionalPrinterColumns?.length ? v.additionalPrinterColumns : DEFAULT_COLUMNS),
      ],
      fieldLabels: Object.fromEntries(
        (v.selectableFields ?? []).map((f) => [f.jsonPath.replace(/^\./, ''), f.jsonPath.replace(/^\./, '')]),
      ),
      schema: v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      hooks: customResourceHooks(group, storageVersion),
    }));
}

function customResourceHooks(group: string, storageVersion: string): KindHooks {
  return {
    toStorage: (obj) => ({ ...obj, apiVersion: `${group}/${storageVersion}` }),
  };
}

/** Set on every CRD by the real server; deleting a CRD first deletes its instances. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export const crdHooks: KindHooks = {
  prepare(obj, old) {
    if (!old)
      obj.metadata.finalizers = [...new Set([...(obj.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
    const s = crdSpec(obj);
    const names = s.names ?? {};
    if (names.kind) {
      names.singular ??= names.kind.toLowerCase();
      names.listKind ??= `${names.kind}List`;
    }
    const specObject = obj['spec'] as JsonObject;
    specObject['conversion'] ??= { strategy: 'None' };
    const now = formatTime(Date.now());
    const oldStatus = old && isJsonObject(old['status']) ? old['status'] : undefined;
    const storage = s.versions?.find((v) => v.storage)?.name;
    const stored = Array.isArray(oldStatus?.['storedVersions'])
      ? (oldStatus['storedVersions'] as string[])
      : [];
    // Established at once: the real server flips the conditions a moment after the create.
    const conditions = oldStatus?.['conditions'] ?? [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: now,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ];
    obj['status'] = {
      conditions,
      acceptedNames: { ...names },
      storedVersions: storage && !stored.includes(storage) ? [...stored, storage] : stored,
    };
  },
  validate(obj) {
    const s = crdSpec(obj);
    const errors: FieldError[] = [];
    const names = s.names ?? {};
    if (!s.group) errors.push(required('spec.group'));
    else if (!s.group.includes('.'))
      errors.push(invalid('spec.group', s.group, 'should be a domain with at least one dot'));
    if (!names.plural) errors.push(required('spec.names.plural'));
    if (!names.kind) errors.push(required('spec.names.kind'));
    const expected = `${names.plural ?? ''}.${s.group ?? ''}`;
    if (obj.metadata.name !== expected) {
      errors.push(
        invalid('metadata.name', obj.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'),
      );
    }
    if (s.scope !== 'Namespaced' && s.scope !== 'Cluster') {
      errors.push(notSupported('spec.scope', s.scope ?? '', ['Cluster', 'Namespaced']));
    }
    const versions = s.versions ?? [];
    if (versions.filter((v) => v.storage).length !== 1) {
      errors.push(
        invalid(
          'spec.versions',
          versions.map((v) => v.name),
          'must have exactly one version marked as storage version',
        ),
      );
    }
    versions.forEach((v, i) => {
      const schema = v.schema?.openAPIV3Schema;
      if (!schema) {
        errors.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
        return;
      }
      for (const message of [...findCelCompileErrors(schema), ...findBadPatterns(schema)]) {
        errors.push(invalid(`spec.versions[${i}].schema.openAPIV3Schema`, '', message));
      }
    });
    return errors;
  },
};

function findBadPatterns(schema: JsonSchemaProps): string[] {
  const found: string[] = [];
  if (schema.pattern !== undefined) {
    try {
      new RegExp(schema.pattern);
    } catch (e: unknown) {
      found.push(`pattern ${JSON.stringify(schema.pattern)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  for (const child of Object.values(schema.properties ?? {})) found.push(...findBadPatterns(child));
  if (schema.items) found.push(...findBadPatterns(schema.items));
  if (isJsonObject(schema.additionalProperties)) found.push(...findBadPatterns(schema.additionalProperties));
  return found;
}
