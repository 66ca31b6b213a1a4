import { ageOf } from './human-duration.js';
import type { PrinterColumn } from './types.js';

/** Columns every table printer shares. */

export const NAME_COLUMN: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (obj) => obj.metadata.name ?? '',
};

export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'string',
  cell: (obj, nowMs) => ageOf(obj.metadata.creationTimestamp, nowMs),
};

export function column(
  name: string,
  cell: PrinterColumn['cell'],
  extra: Partial<PrinterColumn> = {},
): PrinterColumn {
  return { name, type: 'string', cell, ...extra };
}
