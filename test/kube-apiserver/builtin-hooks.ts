import { forbidden, invalid, notSupported, required, tooLong } from './field-errors.js';
import { checkMicroTime, normalizeMicroTime } from './micro-time.js';
import { isJsonObject, type FieldError, type JsonObject, type KindHooks, type KubeObject } from './types.js';

/** Defaulting, validation and conversion of the built-in kinds, reduced to what clients observe. */

function spec(obj: KubeObject): JsonObject {
  const value = obj['spec'];
  return isJsonObject(value) ? value : {};
}

export const namespaceHooks: KindHooks = {
  prepare(obj, old) {
    const name = obj.metadata.name ?? '';
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': name };
    if (!old) {
      const s = spec(obj);
      if (!Array.isArray(s['finalizers'])) s['finalizers'] = ['kubernetes'];
      obj['spec'] = s;
      obj['status'] = { phase: 'Active' };
    }
  },
};

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_SECRET_BYTES = 1024 * 1024;

export const secretHooks: KindHooks = {
  checkDecode(obj) {
    const data = obj['data'];
    if (!isJsonObject(data)) return undefined;
    for (const value of Object.values(data)) {
      if (typeof value !== 'string') return 'json: cannot unmarshal non-string into Go value of type []uint8';
      if (!BASE64.test(value)) return `illegal base64 data at input byte ${firstBadBase64Byte(value)}`;
    }
    return undefined;
  },
  prepare(obj) {
    const stringData = obj['stringData'];
    if (isJsonObject(stringData)) {
      const data = isJsonObject(obj['data']) ? obj['data'] : {};
      for (const [key, value] of Object.entries(stringData)) {
        data[key] = Buffer.from(String(value)).toString('base64');
      }
      obj['data'] = data;
    }
    delete obj['stringData'];
    if (!obj['type']) obj['type'] = 'Opaque';
  },
  validate(obj, old) {
    const errors: FieldError[] = [];
    const data = isJsonObject(obj['data']) ? obj['data'] : {};
    let bytes = 0;
    for (const [key, value] of Object.entries(data)) {
      if (!CONFIG_KEY.test(key)) {
        errors.push(
          invalid(
            `data[${key}]`,
            key,
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
          ),
        );
      }
      bytes += Buffer.from(String(value), 'base64').length;
    }
    if (bytes > MAX_SECRET_BYTES) errors.push(tooLong('data', MAX_SECRET_BYTES));
    if (old) {
      if (obj['type'] !== old['type']) errors.push(invalid('type', obj['type'], 'field is immutable'));
      if (old['immutable'] === true) {
        if (JSON.stringify(obj['data'] ?? {}) !== JSON.stringify(old['data'] ?? {})) {
          errors.push(forbidden('data', 'field is immutable when `immutable` is set'));
        }
        if (obj['immutable'] !== true)
          errors.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
      }
    }
    return errors;
  },
};

function firstBadBase64Byte(value: string): number {
  const index = [...value].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
  return index === -1 ? value.length - (value.length % 4) : index;
}

const LEASE_TIMES = ['acquireTime', 'renewTime'] as const;

export const leaseHooks: KindHooks = {
  checkDecode(obj) {
    const s = spec(obj);
    for (const field of LEASE_TIMES) {
      const problem = checkMicroTime(s[field]);
      if (problem) return problem;
    }
    return undefined;
  },
  prepare(obj) {
    const s = spec(obj);
    for (const field of LEASE_TIMES) {
      const value = s[field];
      if (typeof value === 'string') s[field] = normalizeMicroTime(value);
    }
  },
  validate(obj) {
    const s = spec(obj);
    const errors: FieldError[] = [];
    const duration = s['leaseDurationSeconds'];
    if (typeof duration === 'number' && duration <= 0) {
      errors.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
    }
    const transitions = s['leaseTransitions'];
    if (typeof transitions === 'number' && transitions < 0) {
      errors.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
    }
    return errors;
  },
};

export const coreEventHooks: KindHooks = {
  checkDecode: (obj) => checkMicroTime(obj['eventTime']),
  prepare(obj) {
    if (typeof obj['eventTime'] === 'string') obj['eventTime'] = normalizeMicroTime(obj['eventTime']);
  },
  validate(obj) {
    const involved = isJsonObject(obj['involvedObject']) ? obj['involvedObject'] : {};
    const ns = involved['namespace'];
    if (typeof ns === 'string' && ns !== '' && ns !== obj.metadata.namespace) {
      return [invalid('involvedObject.namespace', ns, 'does not match event.namespace')];
    }
    return [];
  },
};

/** events.k8s.io/v1 field → core/v1 field; both API groups share one storage. */
const EVENT_FIELDS: [string, string][] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];

function renameFields(obj: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out: KubeObject = { ...obj, apiVersion };
  for (const [from, to] of pairs) {
    Reflect.deleteProperty(out, from);
    if (obj[from] !== undefined) out[to] = obj[from];
  }
  return out;
}

export const eventsV1Hooks: KindHooks = {
  checkDecode: (obj) => checkMicroTime(obj['eventTime']),
  prepare: coreEventHooks.prepare,
  validate(obj) {
    const errors: FieldError[] = [];
    if (!obj['eventTime']) errors.push(required('eventTime'));
    const type = obj['type'];
    if (type !== 'Normal' && type !== 'Warning')
      errors.push(notSupported('type', type ?? '', ['Normal', 'Warning']));
    for (const field of ['reportingController', 'reportingInstance', 'action', 'reason']) {
      if (!obj[field]) errors.push(required(field));
    }
    const note = obj['note'];
    if (typeof note === 'string' && Buffer.byteLength(note) > 1024) errors.push(tooLong('note', 1024));
    return errors;
  },
  toStorage: (obj) => renameFields(obj, EVENT_FIELDS, 'v1'),
  fromStorage: (obj) =>
    renameFields(
      obj,
      EVENT_FIELDS.map(([a, b]) => [b, a]),
      'events.k8s.io/v1',
    ),
};

export function createServiceHooks(allocateClusterIp: () => string): KindHooks {
  return {
    prepare(obj, old) {
      const s = spec(obj);
      s['type'] ??= 'ClusterIP';
      const oldSpec = old ? spec(old) : {};
      if (s['type'] !== 'ExternalName') {
        s['clusterIP'] ??= oldSpec['clusterIP'] ?? allocateClusterIp();
        s['clusterIPs'] ??= oldSpec['clusterIPs'] ?? [s['clusterIP']];
        s['ipFamilies'] ??= ['IPv4'];
        s['ipFamilyPolicy'] ??= 'SingleStack';
        s['internalTrafficPolicy'] ??= 'Cluster';
      }
      s['sessionAffinity'] ??= 'None';
      for (const port of Array.isArray(s['ports']) ? s['ports'] : []) {
        if (!isJsonObject(port)) continue;
        port['protocol'] ??= 'TCP';
        port['targetPort'] ??= port['port'];
      }
      obj['spec'] = s;
      if (!old) obj['status'] = { loadBalancer: {} };
    },
    validate(obj) {
      const s = spec(obj);
      const errors: FieldError[] = [];
      const ports = Array.isArray(s['ports']) ? s['ports'] : [];
      if (ports.length === 0 && s['type'] !== 'ExternalName' && s['clusterIP'] !== 'None') {
        errors.push(required('spec.ports'));
      }
      ports.forEach((port, i) => {
        const value = isJsonObject(port) ? port['port'] : undefined;
        if (typeof value !== 'number' || value < 1 || value > 65535) {
          errors.push(invalid(`spec.ports[${i}].port`, value ?? 0, 'must be between 1 and 65535, inclusive'));
        }
      });
      return errors;
    },
  };
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];

export const endpointSliceHooks: KindHooks = {
  validate(obj, old) {
    const errors: FieldError[] = [];
    const addressType = obj['addressType'];
    if (!addressType) errors.push(required('addressType'));
    else if (typeof addressType !== 'string' || !ADDRESS_TYPES.includes(addressType)) {
      errors.push(notSupported('addressType', addressType, ADDRESS_TYPES));
    } else if (old && old['addressType'] !== addressType) {
      errors.push(invalid('addressType', addressType, 'field is immutable'));
    }
    const endpoints = Array.isArray(obj['endpoints']) ? obj['endpoints'] : [];
    endpoints.forEach((endpoint, i) => {
      const addresses = isJsonObject(endpoint) ? endpoint['addresses'] : undefined;
      if (!Array.isArray(addresses) || addresses.length === 0) {
        errors.push(required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
      }
    });
    return errors;
  },
};
