import { GROUP, VERSION, type Kind } from './kinds.js';
import { obj, str, type Schema } from './schema.js';
import { statusSchema } from './status.js';

/**
 * One kind of the custom-resource API: its names, the `spec` schema (beside the kind's parser, from the
 * constants both use), its `status` schema when more than conditions, and its printer columns.
 */
export interface CrdSource {
  kind: Kind;
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
