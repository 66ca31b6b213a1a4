/** Shared shapes of the test API server; a leaf module that imports nothing. */

export type JsonObject = { [key: string]: unknown };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: JsonObject[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

/** One `x-kubernetes-validations` entry of a CRD schema. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The subset of apiextensions.k8s.io/v1 JSONSchemaProps that the server honours. */
export interface JsonSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  nullable?: boolean;
  default?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  items?: JsonSchemaProps;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
}

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** A Go value rendered verbatim in a field error (`0x0`, `map[string]interface {}{…}`). */
export class GoLiteral {
  constructor(readonly text: string) {}
}

/** Marks a field error whose body leaves the bad value out, as Go's `field.OmitValueType`. */
export const OMIT_VALUE: unique symbol = Symbol('omit-value');

/** apimachinery's `field.Error`: `field` is the dotted path (`spec.items[0].name`), `<nil>` for the root. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  value: unknown;
  detail: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
  /** Built-in printers compute their cells; CRD columns use `jsonPath`. */
  cell?: (obj: KubeObject, nowMs: number) => unknown;
}

/** Per-kind behaviour that the generic write path cannot know. */
export interface KindHooks {
  /** A decode failure the real server answers with 400 (`… cannot be handled as a Lease: …`). */
  checkDecode?: (obj: KubeObject) => string | undefined;
  /** Defaulting on create and update; mutates `obj`. */
  prepare?: (obj: KubeObject, old: KubeObject | undefined) => void;
  validate?: (obj: KubeObject, old: KubeObject | undefined) => FieldError[];
  /** Served form → stored form and back, for kinds served by two API groups (events). */
  toStorage?: (obj: KubeObject) => KubeObject;
  fromStorage?: (obj: KubeObject) => KubeObject;
}

export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path-segment';

/** One served group/version/resource. */
export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Every served version (and API group, for events) of one stored kind shares it. */
  storageKey: string;
  hasStatus: boolean;
  hasGeneration: boolean;
  /** CRs and CRDs refuse unconditional updates (`metadata.resourceVersion` must be set). */
  requireResourceVersion: boolean;
  isCustom: boolean;
  nameRule: NameRule;
  columns: PrinterColumn[];
  /** Field selector labels besides `metadata.name` and `metadata.namespace`, mapped to dotted paths. */
  fieldLabels: Record<string, string>;
  schema?: JsonSchemaProps;
  hooks: KindHooks;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed write, as the watch cache sees it. Objects are in storage form. */
export interface StoreEvent {
  type: WatchEventType;
  revision: number;
  storageKey: string;
  object: KubeObject;
  /** The state before this write, so selector watches can turn updates into ADDED/DELETED. */
  previous?: KubeObject;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
