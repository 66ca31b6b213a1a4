/** Small builders for structural openAPIV3Schema fragments, so the CRD sources read like the API. */
export type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});

/** `MINUTE` → `Minute`. */
export const capitalize = (word: string): string => word.charAt(0) + word.slice(1).toLowerCase();

/** The spellings of a unit the parsers accept, for an `enum`: `minute`, `Minute`, `MINUTE`. */
export const unitSpellings = (units: readonly string[]): string[] =>
  units.flatMap((u) => [u.toLowerCase(), capitalize(u), u]);

/** A CEL rule as `x-kubernetes-validations` takes it. */
export const rule = (expression: string, message: string): Schema => ({ rule: expression, message });

/** `status` as every Portcullis resource has it: `metav1.Condition`s and the generation they describe. */
export const statusSchema = (extra: Record<string, Schema> = {}): Schema =>
  obj({
    observedGeneration: int({ format: 'int64', minimum: 0 }),
    conditions: list(
      obj(
        {
          type: str({
            maxLength: 316,
            pattern:
              '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
          }),
          status: str({ enum: ['True', 'False', 'Unknown'] }),
          observedGeneration: int({ format: 'int64', minimum: 0 }),
          lastTransitionTime: str({ format: 'date-time' }),
          reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
          message: str({ maxLength: 32768 }),
        },
        { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
      ),
      { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], maxItems: 8 },
    ),
    ...extra,
  });

export interface CrdSource {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: Schema;
  status?: Schema;
  printerColumns: Array<{
    name: string;
    type: string;
    jsonPath: string;
    description?: string;
    priority?: number;
  }>;
}

export const GROUP = 'portcullis.dev';
export const VERSION = 'v1alpha1';

/** The CustomResourceDefinition object for one kind. */
export function toCrd(s: CrdSource): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${s.plural}.${GROUP}`, labels: { 'app.kubernetes.io/part-of': 'portcullis' } },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: s.kind,
        listKind: `${s.kind}List`,
        plural: s.plural,
        singular: s.singular,
        shortNames: s.shortNames,
        categories: ['portcullis'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...s.printerColumns,
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: obj(
              {
                apiVersion: str(),
                kind: str(),
                metadata: { type: 'object' },
                spec: s.spec,
                status: s.status ?? statusSchema(),
              },
              { description: s.description, required: ['spec'] },
            ),
          },
        },
      ],
    },
  };
}
