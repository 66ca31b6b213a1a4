/**
 * A value a `google.protobuf.Struct` holds, as plain data (the proto3 JSON form). The same shape as
 * `StructValue` of @portcullis/config, which this package does not depend on.
 */
export type StructValue = null | boolean | number | string | StructValue[] | { [key: string]: StructValue };

/** `google.protobuf.Struct` as protobufjs and proto-loader objects: `{ fields: { k: { stringValue: … } } }`. */
export function toStruct(map: Readonly<Record<string, StructValue>>): object {
  return { fields: Object.fromEntries(Object.entries(map).map(([k, v]) => [k, toStructValue(v)])) };
}

function toStructValue(v: StructValue): object {
  if (v === null) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toStructValue) } };
  return { structValue: toStruct(v) };
}

/** The plain map a decoded `google.protobuf.Struct` stands for; the inverse of `toStruct`. */
export function fromStruct(struct: unknown): Record<string, StructValue> {
  const fields = (struct as { fields?: Record<string, unknown> } | undefined)?.fields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fromStructValue(v)]));
}

function fromStructValue(v: unknown): StructValue {
  const value = (v ?? {}) as {
    stringValue?: string;
    numberValue?: number;
    boolValue?: boolean;
    listValue?: { values?: unknown[] };
    structValue?: unknown;
  };
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.numberValue !== undefined) return value.numberValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.listValue !== undefined) return (value.listValue.values ?? []).map(fromStructValue);
  if (value.structValue !== undefined) return fromStruct(value.structValue);
  return null;
}
