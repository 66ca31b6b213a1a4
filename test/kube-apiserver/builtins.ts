import {
  coreEventHooks,
  createServiceHooks,
  endpointSliceHooks,
  eventsV1Hooks,
  leaseHooks,
  namespaceHooks,
  secretHooks,
} from './builtin-hooks.js';
import { crdHooks } from './crd.js';
import { AGE_COLUMN, column, NAME_COLUMN } from './columns.js';
import { ageOf } from './human-duration.js';
import {
  isJsonObject,
  type JsonObject,
  type KubeObject,
  type PrinterColumn,
  type ResourceDef,
} from './types.js';

/** The built-in kinds the operator and kubectl use, with the columns their real table printers show. */

export const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
export const NAMESPACE_STORAGE_KEY = 'core/namespaces';

function field(obj: KubeObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) cur = isJsonObject(cur) ? cur[part] : undefined;
  return cur;
}

function scalar(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function servicePorts(obj: KubeObject): string {
  const ports = field(obj, 'spec.ports');
  if (!Array.isArray(ports) || ports.length === 0) return '<none>';
  return ports
    .filter(isJsonObject)
    .map((p) => {
      const node = p['nodePort'] === undefined ? '' : `:${scalar(p['nodePort'])}`;
      return `${scalar(p['port'])}${node}/${text(p['protocol'], 'TCP')}`;
    })
    .join(',');
}

function serviceSelector(obj: KubeObject): string {
  const selector = field(obj, 'spec.selector');
  const pairs = isJsonObject(selector) ? Object.entries(selector).map(([k, v]) => `${k}=${scalar(v)}`) : [];
  return pairs.length ? pairs.sort().join(',') : '<none>';
}

function sliceEndpoints(obj: KubeObject): string {
  const endpoints = obj['endpoints'];
  const addresses = (Array.isArray(endpoints) ? endpoints : [])
    .filter(isJsonObject)
    .flatMap((e) => (Array.isArray(e['addresses']) ? (e['addresses'] as string[]) : []));
  if (addresses.length === 0) return '<unset>';
  const shown = addresses.slice(0, 3).join(',');
  return addresses.length > 3 ? `${shown} + ${addresses.length - 3} more...` : shown;
}

function eventLastSeen(obj: KubeObject, now: number): string {
  const series = obj['series'];
  if (isJsonObject(series) && series['lastObservedTime']) return ageOf(series['lastObservedTime'], now);
  const last = obj['lastTimestamp'] ?? obj['deprecatedLastTimestamp'];
  const first = obj['firstTimestamp'] ?? obj['deprecatedFirstTimestamp'] ?? obj['eventTime'];
  return ageOf(last ?? first, now);
}

function eventObject(obj: KubeObject): string {
  const target = obj['involvedObject'] ?? obj['regarding'];
  if (!isJsonObject(target)) return '';
  return `${text(target['kind']).toLowerCase()}/${text(target['name'])}`;
}

const EVENT_COLUMNS: PrinterColumn[] = [
  column('Last Seen', eventLastSeen),
  column('Type', (o) => text(o['type'])),
  column('Reason', (o) => text(o['reason'])),
  column('Object', eventObject),
  column('Message', (o) => text(o['message'] ?? o['note'])),
  { ...NAME_COLUMN, priority: 1 },
];

type BuiltinFields = Pick<ResourceDef, 'group' | 'version' | 'plural' | 'kind' | 'namespaced'> &
  Partial<ResourceDef>;

function builtin(fields: BuiltinFields): ResourceDef {
  return {
    singular: fields.kind.toLowerCase(),
    listKind: `${fields.kind}List`,
    shortNames: [],
    categories: [],
    storageKey: `${fields.group || 'core'}/${fields.plural}`,
    hasStatus: false,
    hasGeneration: false,
    requireResourceVersion: false,
    isCustom: false,
    nameRule: 'subdomain',
    columns: [NAME_COLUMN, AGE_COLUMN],
    fieldLabels: {},
    hooks: {},
    ...fields,
  };
}

export function createBuiltinDefs(allocateClusterIp: () => string): ResourceDef[] {
  const eventFieldLabels: Record<string, string> = {
    reason: 'reason',
    reportingComponent: 'reportingComponent',
    source: 'source.component',
    type: 'type',
  };
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    eventFieldLabels[`involvedObject.${f}`] = `involvedObject.${f}`;
  }
  return [
    builtin({
      group: '',
      version: 'v1',
      plural: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      hasStatus: true,
      nameRule: 'label',
      fieldLabels: { 'status.phase': 'status.phase' },
      columns: [NAME_COLUMN, column('Status', (o) => text(field(o, 'status.phase'))), AGE_COLUMN],
      hooks: namespaceHooks,
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'secrets',
      kind: 'Secret',
      namespaced: true,
      fieldLabels: { type: 'type' },
      columns: [
        NAME_COLUMN,
        column('Type', (o) => text(o['type'])),
        column('Data', (o) => Object.keys(isJsonObject(o['data']) ? o['data'] : {}).length, {
          type: 'string',
        }),
        AGE_COLUMN,
      ],
      hooks: secretHooks,
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      fieldLabels: eventFieldLabels,
      columns: EVENT_COLUMNS,
      hooks: coreEventHooks,
    }),
    builtin({
      group: '',
      version: 'v1',
      plural: 'services',
      kind: 'Service',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      hasStatus: true,
      nameRule: 'dns1035',
      columns: [
        NAME_COLUMN,
        column('Type', (o) => text(field(o, 'spec.type'))),
        column('Cluster-IP', (o) => text(field(o, 'spec.clusterIP'), '<none>')),
        column('External-IP', (o) => externalIps(o)),
        column('Port(s)', servicePorts),
        AGE_COLUMN,
        column('Selector', serviceSelector, { priority: 1 }),
      ],
      hooks: createServiceHooks(allocateClusterIp),
    }),
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      plural: 'leases',
      kind: 'Lease',
      namespaced: true,
      columns: [NAME_COLUMN, column('Holder', (o) => text(field(o, 'spec.holderIdentity'))), AGE_COLUMN],
      hooks: leaseHooks,
    }),
    builtin({
      group: 'discovery.k8s.io',
      version: 'v1',
      plural: 'endpointslices',
      kind: 'EndpointSlice',
      namespaced: true,
      hasGeneration: true,
      columns: [
        NAME_COLUMN,
        column('AddressType', (o) => text(o['addressType'])),
        column('Ports', (o) => slicePorts(o)),
        column('Endpoints', sliceEndpoints),
        AGE_COLUMN,
      ],
      hooks: endpointSliceHooks,
    }),
    builtin({
      group: 'events.k8s.io',
      version: 'v1',
      plural: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      storageKey: 'core/events',
      columns: EVENT_COLUMNS,
      hooks: eventsV1Hooks,
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      storageKey: CRD_STORAGE_KEY,
      hasStatus: true,
      hasGeneration: true,
      requireResourceVersion: true,
      columns: [
        NAME_COLUMN,
        column('Created At', (o) => text(o.metadata.creationTimestamp), { type: 'date' }),
      ],
      hooks: crdHooks,
    }),
  ];
}

function externalIps(obj: KubeObject): string {
  const ips = field(obj, 'spec.externalIPs');
  const ingress = field(obj, 'status.loadBalancer.ingress');
  const all = [
    ...(Array.isArray(ips) ? (ips as string[]) : []),
    ...(Array.isArray(ingress)
      ? ingress.filter(isJsonObject).map((i: JsonObject) => text(i['ip'] ?? i['hostname']))
      : []),
  ];
  if (all.length) return all.join(',');
  return field(obj, 'spec.type') === 'LoadBalancer' ? '<pending>' : '<none>';
}

function slicePorts(obj: KubeObject): string {
  const ports = obj['ports'];
  if (!Array.isArray(ports) || ports.length === 0) return '<unset>';
  return ports
    .filter(isJsonObject)
    .map((p) => scalar(p['port']))
    .join(',');
}
