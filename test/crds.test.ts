import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// The CRDs on the real kube-apiserver: accepted as structural, served, defaulting, and refusing invalid
// resources with the server's own messages. The fixtures in testdata/invalid-resources are named for
// their failure.

const repo = join(import.meta.dirname, '..');
const crdDir = join(repo, 'crds');
const invalidDir = join(import.meta.dirname, 'testdata/invalid-resources');

/** Fixture → what the real server answers `kubectl create -f -` with. */
const NOT_CHECKED =
  '* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
const SEVENTH_LEVEL =
  'spec.descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0]';
const REFUSALS: Readonly<Record<string, string>> = {
  'descriptors-seven-levels-deep.yaml': `Error from server (BadRequest): error when creating "STDIN": RateLimitConfig in version "v1alpha1" cannot be handled as a RateLimitConfig: strict decoding error: unknown field "${SEVENTH_LEVEL}.key", unknown field "${SEVENTH_LEVEL}.rate_limit"`,
  'handler-and-backend.yaml':
    'The ApiRoute "handler-and-backend" is invalid: spec.routes[0]: Invalid value: exactly one of handler or backend is required',
  'header-descriptor-without-name.yaml':
    'The ApiRoute "header-descriptor-without-name" is invalid: spec.routes[0].rateLimit.descriptors[0]: Invalid value: name is required for header, claim, pathParam and query sources',
  'misspelled-field.yaml':
    'Error from server (BadRequest): error when creating "STDIN": InboxEndpoint in version "v1alpha1" cannot be handled as a InboxEndpoint: strict decoding error: unknown field "spec.displayNam"',
  'requests-per-unit-string.yaml': [
    'The RateLimitConfig "requests-per-unit-string" is invalid: ',
    '* spec.descriptors[0].rate_limit.requests_per_unit: Invalid value: "string": spec.descriptors[0].rate_limit.requests_per_unit in body must be of type integer: "string"',
    NOT_CHECKED,
  ].join('\n'),
  'response-header-clear-site-data.yaml':
    'The InboxEndpoint "response-header-clear-site-data" is invalid: spec.response.headers[0].name: Invalid value: "Clear-Site-Data": this header cannot be set: it is hop-by-hop, the inbox sets it, or it acts on the whole origin',
  'response-header-set-cookie.yaml':
    'The InboxEndpoint "response-header-set-cookie" is invalid: spec.response.headers[0].name: Invalid value: "Set-Cookie": this header cannot be set: it is hop-by-hop, the inbox sets it, or it acts on the whole origin',
  'response-header-value-outside-latin-1.yaml':
    'The InboxEndpoint "response-header-value-outside-latin-1" is invalid: spec.response.headers[0].value: Invalid value: "€": spec.response.headers[0].value in body should match \'^[\\t\\x20-\\x7e\\x80-\\xff]*$\'',
  'unknown-unit.yaml': [
    'The RateLimitConfig "unknown-unit" is invalid: ',
    '* spec.descriptors[0].rate_limit.unit: Unsupported value: "decade": supported values: "second", "Second", "SECOND", "minute", "Minute", "MINUTE", "hour", "Hour", "HOUR", "day", "Day", "DAY", "week", "Week", "WEEK", "month", "Month", "MONTH", "year", "Year", "YEAR"',
    NOT_CHECKED,
  ].join('\n'),
  'unlimited-with-unit.yaml':
    'The RateLimitConfig "unlimited-with-unit" is invalid: spec.descriptors[0].rate_limit: Invalid value: unlimited excludes unit',
};

/**
 * How many times over the CEL cost of today's CRDs must still fit the real budget. The chart supports
 * Kubernetes 1.27 and later, whose cost estimators differ from this server's; a rule near the limit here
 * could be refused there.
 */
const CEL_COST_MARGIN = 4;

interface Crd {
  metadata: { name: string };
  spec: {
    group: string;
    names: { plural: string };
    versions: Array<{
      schema: { openAPIV3Schema: SchemaNode & { properties: { spec: SchemaNode } } };
      additionalPrinterColumns?: Array<{ name: string; jsonPath: string }>;
    }>;
  };
  status?: { conditions?: Array<{ type: string; status: string }> };
}
interface SchemaNode {
  type?: string;
  maxItems?: number;
  properties?: Record<string, SchemaNode>;
}

const stderrOf = (err: unknown): string => ((err as { stderr?: string }).stderr ?? String(err)).trim();

describe('CRDs on the real API server', () => {
  let cp: ControlPlane;
  /** `kubectl create -f -`: 'created', or the server's refusal. */
  const create = (manifest: string, ...flags: string[]): Promise<string> =>
    cp.kubectl(['create', ...flags, '-f', '-'], { input: manifest }).then(() => 'created', stderrOf);
  const getJson = async <T>(...args: string[]): Promise<T> =>
    JSON.parse(await cp.kubectl(['get', ...args, '-o', 'json'])) as T;

  beforeAll(async () => {
    cp = await startControlPlane({ crds: [crdDir] });
  }, 180_000);
  afterAll(async () => {
    await cp.close();
  });

  it('accepts every CRD as structural and establishes it', async () => {
    const { items } = await getJson<{ items: Crd[] }>('crd');
    expect(
      items.map((c) => [c.metadata.name, (c.status?.conditions ?? []).map((k) => `${k.type}=${k.status}`)]),
    ).toEqual([
      ['apiroutes.portcullis.dev', ['NamesAccepted=True', 'Established=True']],
      ['inboxendpoints.portcullis.dev', ['NamesAccepted=True', 'Established=True']],
      ['ratelimitconfigs.portcullis.dev', ['NamesAccepted=True', 'Established=True']],
    ]);
  });

  it('shows in printer columns only fields the schema declares (the server prunes any other)', async () => {
    const problems: string[] = [];
    for (const crd of await getJson<{ items: Crd[] }>('crd').then((l) => l.items)) {
      for (const version of crd.spec.versions) {
        for (const column of version.additionalPrinterColumns ?? []) {
          // `.status.conditions[?(@.type=="Ready")].status`: the path up to the first filter
          const names = column.jsonPath.split('[')[0]!.split('.').slice(1);
          if (names[0] === 'metadata') continue;
          let node: SchemaNode | undefined = version.schema.openAPIV3Schema;
          for (const name of names) node = node?.properties?.[name];
          if (!node)
            problems.push(`${crd.metadata.name} ${column.name}: ${column.jsonPath} is not in the schema`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('fills in the defaults of the schema', async () => {
    const endpoint = `apiVersion: portcullis.dev/v1alpha1
kind: InboxEndpoint
metadata: {name: defaults, namespace: default}
spec:
  endpointId: defaults-0123456789abcdefgh
  forward: [{url: 'http://hooks.example.com/in', retry: {}}]
  retention: {}
`;
    const route = `apiVersion: portcullis.dev/v1alpha1
kind: ApiRoute
metadata: {name: defaults, namespace: default}
spec:
  routes: [{name: orders, method: GET, path: orders, backend: {service: orders, port: 8080}}]
`;
    expect([await create(endpoint), await create(route)]).toEqual(['created', 'created']);
    const stored = await getJson<{ spec: unknown }>('inboxendpoint', 'defaults');
    expect(stored.spec).toEqual({
      endpointId: 'defaults-0123456789abcdefgh',
      forward: [
        {
          url: 'http://hooks.example.com/in',
          pathMode: 'append',
          enabled: true,
          timeoutSeconds: 10,
          maxConcurrent: 32,
          retry: { maxAttempts: 8, initialDelaySeconds: 30, maxDelaySeconds: 3600 },
        },
      ],
      retention: { maxRequests: 500, maxAgeHours: 168, maxBytes: 52_428_800 },
    });
    const storedRoute = await getJson<{ spec: { routes: unknown[] } }>('apiroute', 'defaults');
    expect(storedRoute.spec.routes).toEqual([
      expect.objectContaining({
        auth: true,
        backend: { service: 'orders', port: 8080, timeoutSeconds: 30, forwardAuthorization: false },
      }),
    ]);
  });

  it('refuses each invalid fixture with the message the server gives', async () => {
    const fixtures = (await readdir(invalidDir)).filter((f) => f.endsWith('.yaml')).sort();
    expect(fixtures).toEqual(Object.keys(REFUSALS).sort());
    for (const fixture of fixtures) {
      const answer = await create(await readFile(join(invalidDir, fixture), 'utf8'));
      expect([fixture, answer]).toEqual([fixture, REFUSALS[fixture]]);
    }
  });

  it('prunes a misspelled field when the client does not ask for strict validation', async () => {
    const manifest = await readFile(join(invalidDir, 'misspelled-field.yaml'), 'utf8');
    const answer = await cp.kubectl(['create', '--validate=warn', '-f', '-'], { input: manifest });
    expect(answer).toMatch(/inboxendpoint.portcullis.dev\/misspelled-field created/);
    const stored = await getJson<{ spec: unknown }>('inboxendpoint', 'misspelled-field');
    expect(stored.spec).toEqual({ endpointId: 'misspelled-field-0123456789' });
  });

  it('refuses descriptors deeper than the schema even when the client does not ask for strict validation', async () => {
    const manifest = await readFile(join(invalidDir, 'descriptors-seven-levels-deep.yaml'), 'utf8');
    const answer = await create(manifest, '--validate=warn');
    expect(answer.split('\n').filter((line) => !line.startsWith('Warning: '))).toEqual([
      'The RateLimitConfig "descriptors-seven-levels-deep" is invalid: ',
      '* spec.descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors[0].descriptors: Too many: 1: must have at most 0 items',
      NOT_CHECKED,
    ]);
  });

  it('keeps endpointId immutable (a transition rule)', async () => {
    const patch = JSON.stringify({ spec: { endpointId: 'changed-0123456789abcdefgh' } });
    const answer = await cp
      .kubectl(['patch', 'inboxendpoint', 'defaults', '--type=merge', '-p', patch])
      .then(() => 'patched', stderrOf);
    expect(answer).toBe(
      'The InboxEndpoint "defaults" is invalid: spec.endpointId: Invalid value: "changed-0123456789abcdefgh": endpointId is immutable',
    );
  });

  it(`accepts every CRD with ${CEL_COST_MARGIN} times as many top-level list items: CEL cost has that margin`, async () => {
    const problems: string[] = [];
    for (const file of (await readdir(crdDir)).sort()) {
      const crd = parse(await readFile(join(crdDir, file), 'utf8')) as Crd;
      // a CEL rule under a top-level list of spec runs once per item: its cost grows with that maxItems
      for (const version of crd.spec.versions) {
        for (const node of Object.values(version.schema.openAPIV3Schema.properties.spec.properties ?? {}))
          if (node.type === 'array' && node.maxItems !== undefined) node.maxItems *= CEL_COST_MARGIN;
      }
      crd.spec.group = 'margin.portcullis.dev';
      crd.metadata.name = `${crd.spec.names.plural}.${crd.spec.group}`;
      const answer = await create(JSON.stringify(crd), '--dry-run=server');
      if (answer !== 'created') problems.push(`${file}: ${answer}`);
    }
    expect(problems).toEqual([]);
  });
});
