import { formatGoFloat } from './field-errors.js';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';
import {
  isJsonObject,
  type JsonObject,
  type KubeObject,
  type PrinterColumn,
  type ResourceDef,
} from './types.js';

/** `meta.k8s.io/v1 Table` responses, as kubectl's `get` asks for them (`Accept: …;as=Table;…`). */

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  listMetadata: JsonObject;
  includeObject: IncludeObject;
  nowMs: number;
}

export function toTable(def: ResourceDef, objects: KubeObject[], opts: TableOptions): JsonObject {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: opts.listMetadata,
    columnDefinitions: def.columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
    rows: objects.map((obj) => toRow(def, obj, opts)),
  };
}

function toRow(def: ResourceDef, obj: KubeObject, opts: TableOptions): JsonObject {
  const row: JsonObject = { cells: def.columns.map((c) => cellFor(c, obj, opts.nowMs)) };
  switch (opts.includeObject) {
    case 'None':
      break;
    case 'Object':
      row['object'] = obj;
      break;
    case 'Metadata':
      row['object'] = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
      break;
    default: {
      const _exhaustive: never = opts.includeObject;
      return _exhaustive;
    }
  }
  return row;
}

const parsedPaths = new Map<string, ReturnType<typeof parseJsonPath>>();

/** A CRD column's cell, as apiextensions' table convertor renders it (`cellForJSONValue`). */
function cellFor(column: PrinterColumn, obj: KubeObject, nowMs: number): unknown {
  if (column.cell) return column.cell(obj, nowMs);
  if (!column.jsonPath) return null;
  let steps = parsedPaths.get(column.jsonPath);
  if (!steps) {
    steps = parseJsonPath(column.jsonPath);
    parsedPaths.set(column.jsonPath, steps);
  }
  const [value] = evaluateJsonPath(steps, obj);
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'string':
      return goPrint(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const parsed = Date.parse(value);
      return Number.isNaN(parsed) ? '<invalid>' : humanDuration(nowMs - parsed);
    }
    default:
      return null;
  }
}

/** Go's `fmt.Fprint` of decoded JSON, as the JSONPath printer writes it. */
function goPrint(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatGoFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (isJsonObject(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${k}:${goPrint(value[k])}`);
    return `map[${entries.join(' ')}]`;
  }
  return JSON.stringify(value);
}

/** Parses the Accept header: which representation the client wants first. */
export type Representation = 'table' | 'partial-metadata' | 'json' | 'discovery-v2';

export function negotiate(accept: string | undefined): Representation {
  for (const clause of (accept ?? '').split(',')) {
    const params = new Map(
      clause
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    const as = params.get('as');
    if (as === 'Table' && params.get('g') === 'meta.k8s.io') return 'table';
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return 'partial-metadata';
    if (as === 'APIGroupDiscoveryList' && params.get('v') === 'v2') return 'discovery-v2';
    const media = clause.split(';')[0]?.trim() ?? '';
    if (
      !as &&
      (media === 'application/json' || media === '*/*' || media === 'application/*' || media === '')
    ) {
      return 'json';
    }
  }
  return 'json';
}
