import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROTO_FILES, createMessageCodec, type MessageCodec } from '@portcullis/protos';
import { compareGolden, readGoldenInputs } from '@portcullis/testing';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { API_VERSION, KINDS, isKind } from '@portcullis/config';
import { resourceName, type Resource } from '../resources.js';
import { ResourceStore } from '../store.js';
import { Reconciler } from './reconciler.js';

// Golden tests of the translation from resources to xDS: each input (a file of manifests under
// testdata/translation/in, and the shipped examples as they are) is reconciled, and every served resource,
// decoded, and every rejection is compared with testdata/translation/out/<input>.json. UPDATE_GOLDEN=1
// rewrites the outputs; review the diff.

const repo = join(import.meta.dirname, '../../..');
const testdata = join(repo, 'operator/testdata/translation');
const examples = join(repo, 'examples/resources');

const CODECS: Record<string, MessageCodec> = Object.fromEntries(
  [
    [PROTO_FILES.rateLimitConfig, 'ratelimit.config.ratelimit.v3.RateLimitConfig'],
    [PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute'],
    [PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint'],
  ].map(([file, type]) => {
    const codec = createMessageCodec(file as string, type as string);
    return [codec.typeUrl, codec];
  }),
);

function manifests(files: readonly string[]): Resource[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
      const o = doc.toJS() as Partial<Resource> | null;
      if (!o || o.apiVersion !== API_VERSION || !isKind(o.kind)) return [];
      const metadata: Partial<Resource['metadata']> = o.metadata ?? {};
      return [
        {
          apiVersion: API_VERSION,
          kind: o.kind,
          metadata: {
            name: metadata.name ?? '',
            namespace: metadata.namespace || 'default',
            uid: `uid-${metadata.name}`,
            generation: 1,
            creationTimestamp: metadata.creationTimestamp ?? '2026-11-20T00:00:00Z',
          },
          spec: o.spec,
        },
      ];
    }),
  );
}

function translate(resources: readonly Resource[]): unknown {
  const store = new ResourceStore();
  for (const r of resources) store.upsert(r);
  const results = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store);
  return Object.fromEntries(
    KINDS.map((kind) => {
      const result = results[kind];
      const codec = CODECS[result.typeUrl];
      if (!codec) throw new Error(`no codec for ${result.typeUrl}`);
      return [
        kind,
        {
          typeUrl: result.typeUrl,
          resources: result.resources.map((r) => ({ name: r.name, message: codec.decode(r.value) })),
          rejections: result.outcomes.flatMap((o) =>
            o.rejection ? [{ resource: resourceName(o.resource), ...o.rejection }] : [],
          ),
        },
      ];
    }),
  );
}

const INPUTS: Array<{ name: string; files: string[] }> = [
  {
    name: 'examples',
    files: readdirSync(examples)
      .sort()
      .map((f) => join(examples, f)),
  },
  ...readGoldenInputs(testdata).map(({ name, file }) => ({ name, files: [file] })),
];

describe('translation of resources to xDS (golden)', () => {
  it.each(INPUTS)('$name', ({ name, files }) => {
    const { got, want } = compareGolden(join(testdata, 'out', `${name}.json`), translate(manifests(files)));
    expect(got).toBe(want);
  });
});
