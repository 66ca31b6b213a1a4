import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_CRD_DIR, GROUP, rateLimitConfig, rateLimitConfigs, rejection } from './fixtures.js';
import { startKubeApiServer, type KubeApiServer } from './index.js';

const BLOCKED_CEL =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

let server: KubeApiServer;
let kc: KubeConfig;
let rlc: ReturnType<typeof rateLimitConfigs>;

beforeAll(async () => {
  server = await startKubeApiServer({ crdDirs: [FIXTURE_CRD_DIR] });
  kc = server.kubeConfig();
  rlc = rateLimitConfigs(kc);
});
afterAll(() => server.close());
beforeEach(() => server.hooks.reset());

async function invalidMessage(spec: Record<string, unknown>): Promise<string> {
  const status = await rejection(rlc.create(rateLimitConfig('x', spec)));
  expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
  return status.message;
}

const prefix = 'RateLimitConfig.example.portcullis.dev "x" is invalid: ';
const descriptor = (rateLimit: Record<string, unknown>) => [{ key: 'k', rateLimit }];

describe('OpenAPI schema', () => {
  it('reports a missing required field with its cause, and skips CEL rules', async () => {
    const status = await rejection(
      rlc.create({
        ...rateLimitConfig('x'),
        spec: { descriptors: descriptor({ unit: 'minute', requestsPerUnit: 1 }) },
      }),
    );
    expect(status.message).toBe(`${prefix}[spec.domain: Required value, ${BLOCKED_CEL}]`);
    expect(status.details).toEqual({
      name: 'x',
      group: GROUP,
      kind: 'RateLimitConfig',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.domain' },
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
          field: '<nil>',
        },
      ],
    });
  });

  it('reports enum, pattern, length, range, item count and type violations as the real server words them', async () => {
    expect(await invalidMessage({ mode: 'fortnight' })).toBe(
      `${prefix}[spec.mode: Unsupported value: "fortnight": supported values: "enforce", "shadow", ${BLOCKED_CEL}]`,
    );
    expect(await invalidMessage({ domain: 'Not_A_Label' })).toBe(
      `${prefix}spec.domain: Invalid value: "Not_A_Label": spec.domain in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`,
    );
    expect(await invalidMessage({ domain: 'a'.repeat(64) })).toBe(
      `${prefix}[spec.domain: Too long: may not be more than 63 bytes, ${BLOCKED_CEL}]`,
    );
    expect(await invalidMessage({ descriptors: descriptor({ unit: 'minute', requestsPerUnit: 0 }) })).toBe(
      `${prefix}spec.descriptors[0].rateLimit.requestsPerUnit: Invalid value: 0: spec.descriptors[0].rateLimit.requestsPerUnit in body should be greater than or equal to 1`,
    );
    expect(
      await invalidMessage({ descriptors: descriptor({ unit: 'minute', requestsPerUnit: 2_000_000 }) }),
    ).toBe(
      `${prefix}spec.descriptors[0].rateLimit.requestsPerUnit: Invalid value: 2000000: spec.descriptors[0].rateLimit.requestsPerUnit in body should be less than or equal to 1000000`,
    );
    expect(await invalidMessage({ descriptors: descriptor({ unit: 'minute', requestsPerUnit: '10' }) })).toBe(
      `${prefix}[spec.descriptors[0].rateLimit.requestsPerUnit: Invalid value: "string": spec.descriptors[0].rateLimit.requestsPerUnit in body must be of type integer: "string", ${BLOCKED_CEL}]`,
    );
    const many = ['a', 'b', 'c', 'd', 'e'].map((key) => ({
      key,
      rateLimit: { unit: 'minute', requestsPerUnit: 1 },
    }));
    expect(await invalidMessage({ descriptors: many })).toBe(
      `${prefix}[spec.descriptors: Too many: 5: must have at most 4 items, ${BLOCKED_CEL}]`,
    );
    expect(await invalidMessage({ descriptors: [] })).toBe(
      `${prefix}spec.descriptors: Invalid value: 0: spec.descriptors in body should have at least 1 items`,
    );
  });

  it('enforces map-list key uniqueness', async () => {
    const rateLimit = { unit: 'minute', requestsPerUnit: 1 };
    expect(
      await invalidMessage({
        descriptors: [
          { key: 'a', rateLimit },
          { key: 'a', rateLimit },
        ],
      }),
    ).toBe(`${prefix}spec.descriptors[1]: Duplicate value: map[string]interface {}{"key":"a"}`);
  });

  it('accepts int-or-string values and nothing else there', async () => {
    await rlc.create(rateLimitConfig('num', { target: 8080 }));
    await rlc.create(rateLimitConfig('str', { target: 'http' }));
    const status = await rejection(rlc.create(rateLimitConfig('x', { target: true })));
    expect(status.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueTypeInvalid',
      field: 'spec.target',
    });
  });

  it('validates status writes against the status schema', async () => {
    await rlc.create(rateLimitConfig('x'));
    const status = await rejection(
      rlc.patchStatus('x', { status: { conditions: [{ type: 'Ready', status: 'Maybe' }] } }),
    );
    expect(status.message).toBe(
      `${prefix}[status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown", ${BLOCKED_CEL}]`,
    );
  });

  it('checks metadata.name like the real server', async () => {
    const status = await rejection(rlc.create(rateLimitConfig('Bad_Name', { domain: 'ok' })));
    expect(status.message).toBe(
      `RateLimitConfig.example.portcullis.dev "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
  });
});

describe('x-kubernetes-validations', () => {
  it('reports message and messageExpression failures with the schema type as value', async () => {
    expect(await invalidMessage({ mode: 'shadow', failureModeDeny: true })).toBe(
      `${prefix}spec: Invalid value: "object": failureModeDeny cannot be set in shadow mode`,
    );
    expect(await invalidMessage({ descriptors: descriptor({ unit: 'second', requestsPerUnit: 5000 }) })).toBe(
      `${prefix}spec.descriptors[0]: Invalid value: "object": at most 1000 requests per second, got 5000`,
    );
  });

  it('evaluates transition rules against oldSelf on update only', async () => {
    await rlc.create(rateLimitConfig('x'));
    const status = await rejection(rlc.patch('x', { spec: { domain: 'renamed' } }));
    expect(status.message).toBe(`${prefix}spec.domain: Invalid value: "string": domain is immutable`);
  });

  it('uses the rule reason', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const body = {
      apiVersion: `${GROUP}/v1`,
      kind: 'EdgeClass',
      metadata: { name: 'e' },
      spec: { controllerName: 'acme.io/x' },
    };
    const status = await rejection(
      api.createClusterCustomObject({ group: GROUP, version: 'v1', plural: 'edgeclasses', body }),
    );
    expect(status.message).toBe(
      'EdgeClass.example.portcullis.dev "e" is invalid: spec.controllerName: Forbidden: must be a portcullis.dev controller',
    );
    expect(status.details?.causes?.[0]?.reason).toBe('FieldValueForbidden');
  });
});

describe('pruning, defaulting and field validation', () => {
  it('prunes unknown fields, keeps preserved ones and defaults nulls', async () => {
    const created = await rlc.create(
      rateLimitConfig('x', {
        domian: 'typo',
        mode: null,
        extensions: { anything: { goes: 1 } },
        descriptors: descriptor({ unit: 'hour', requestsPerUnit: 1, burst: 2 }),
      }),
    );
    expect(created['spec']).toEqual({
      domain: 'x',
      mode: 'enforce',
      failureModeDeny: false,
      extensions: { anything: { goes: 1 } },
      descriptors: [{ key: 'k', rateLimit: { unit: 'hour', requestsPerUnit: 1 } }],
    });
  });

  it('warns about dropped fields by default and rejects them under fieldValidation=Strict', async () => {
    const path = `${server.url}/apis/${GROUP}/v1alpha1/namespaces/default/ratelimitconfigs`;
    const post = (query: string, name: string) =>
      fetch(`${path}${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(rateLimitConfig(name, { domian: 'typo' })),
      });
    const warned = await post('', 'warned');
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.domian\\""');
    const strict = await post('?fieldValidation=Strict', 'strict');
    expect(strict.status).toBe(400);
    expect(((await strict.json()) as { message: string }).message).toBe(
      'RateLimitConfig in version "v1alpha1" cannot be handled as a RateLimitConfig: strict decoding error: unknown field "spec.domian"',
    );
  });
});
