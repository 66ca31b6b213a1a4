import { PROTO_FILES, createMessageCodec, fromStruct } from '@portcullis/protos';
import { describe, expect, it } from 'vitest';
import { API_VERSION, type Kind } from '@portcullis/config';
import type { Resource } from '../resources.js';
import { ResourceStore } from '../store.js';
import { desiredStatus, isStatusChanged } from './conditions.js';
import { Reconciler } from './reconciler.js';

const rlc = createMessageCodec(PROTO_FILES.rateLimitConfig, 'ratelimit.config.ratelimit.v3.RateLimitConfig');

function resource(
  kind: Kind,
  name: string,
  spec: unknown,
  opts: { created?: string; generation?: number } = {},
): Resource {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: {
      name,
      namespace: 'team',
      uid: `uid-${name}`,
      generation: opts.generation ?? 1,
      creationTimestamp: opts.created ?? '2026-11-22T00:00:00Z',
    },
    spec,
  };
}

const limit = (domain: string, requestsPerUnit = 5) => ({
  domain,
  descriptors: [{ key: 'user', rate_limit: { unit: 'minute', requests_per_unit: requestsPerUnit } }],
});

describe('Reconciler', () => {
  it('serves valid RateLimitConfigs as upstream RateLimitConfig messages named namespace/name', () => {
    const store = new ResourceStore();
    store.upsert(resource('RateLimitConfig', 'web', limit('web')));
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).RateLimitConfig;
    expect(result.typeUrl).toBe('type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig');
    expect(result.resources.map((r) => ({ name: r.name, message: rlc.decode(r.value) }))).toEqual([
      {
        name: 'team/web',
        message: {
          name: 'team/web',
          domain: 'web',
          descriptors: [{ key: 'user', rateLimit: { unit: 'MINUTE', requestsPerUnit: 5 } }],
        },
      },
    ]);
    expect(result.outcomes[0]).toMatchObject({ rejection: undefined, servedGeneration: 1 });
  });

  it('carries quota_mode, detailed_metric and metadata in the xDS message, metadata as a google.protobuf.Struct', () => {
    const store = new ResourceStore();
    store.upsert(
      resource('RateLimitConfig', 'quota', {
        domain: 'quota',
        descriptors: [
          {
            key: 'svc',
            quota_mode: true,
            detailed_metric: true,
            metadata: { service: 'a', weight: 2, tags: ['x'] },
            rate_limit: { unit: 'hour', requests_per_unit: 9 },
          },
        ],
      }),
    );
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).RateLimitConfig;
    const message = rlc.decode(result.resources[0]?.value ?? new Uint8Array()) as {
      descriptors: Array<{ quotaMode?: boolean; detailedMetric?: boolean; metadata?: unknown }>;
    };
    expect(message.descriptors[0]?.quotaMode).toBe(true);
    expect(message.descriptors[0]?.detailedMetric).toBe(true);
    expect(fromStruct(message.descriptors[0]?.metadata)).toEqual({ service: 'a', weight: 2, tags: ['x'] });
  });

  it('refuses value_to_metric and share_threshold, which the xDS message cannot carry, naming each field', () => {
    const store = new ResourceStore();
    store.upsert(
      resource('RateLimitConfig', 'yaml-only', {
        domain: 'yaml-only',
        descriptors: [
          {
            key: 'tenant',
            value_to_metric: true,
            descriptors: [
              {
                key: 'file',
                value: 'f/*',
                share_threshold: true,
                rate_limit: { unit: 'hour', requests_per_unit: 1 },
              },
            ],
          },
        ],
      }),
    );
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).RateLimitConfig;
    expect(result.resources).toEqual([]);
    expect(result.outcomes[0]?.rejection).toEqual({
      reason: 'NotSupportedOverXds',
      message: [
        "team/yaml-only: descriptors[0].value_to_metric: not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only",
        "team/yaml-only: descriptors[0].descriptors[0].share_threshold: not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only",
      ].join('\n'),
    });
  });

  it('lets the older of two RateLimitConfigs keep a domain, and the newer says why it lost', () => {
    const store = new ResourceStore();
    store.upsert(
      resource('RateLimitConfig', 'b-newer', limit('web', 1), { created: '2026-11-22T10:00:00Z' }),
    );
    store.upsert(
      resource('RateLimitConfig', 'a-older', limit('web', 2), { created: '2026-11-21T10:00:00Z' }),
    );
    store.upsert(resource('RateLimitConfig', 'other', limit('other')));
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).RateLimitConfig;
    expect(result.resources.map((r) => r.name)).toEqual(['team/a-older', 'team/other']);
    const newer = result.outcomes.find((o) => o.resource.metadata.name === 'b-newer');
    expect(newer?.rejection).toEqual({
      reason: 'Conflict',
      message: "domain 'web' is already defined by team/a-older, which is older",
    });
  });

  it('keeps serving the last good generation after an invalid edit, without blocking the others', () => {
    const store = new ResourceStore();
    const reconciler = new Reconciler({ gatewayDomain: 'gateway' });
    store.upsert(resource('RateLimitConfig', 'web', limit('web', 5)));
    store.upsert(resource('RateLimitConfig', 'api', limit('api')));
    reconciler.reconcile(store);
    store.upsert(
      resource(
        'RateLimitConfig',
        'web',
        { domain: 'web', descriptors: [{ key: 'user', rate_limit: { unit: 'fortnight' } }] },
        { generation: 2 },
      ),
    );
    const result = reconciler.reconcile(store).RateLimitConfig;
    expect(
      result.resources.map((r) => [
        r.name,
        (rlc.decode(r.value).descriptors as Array<{ rateLimit: unknown }>)[0]?.rateLimit,
      ]),
    ).toEqual([
      ['team/api', { unit: 'MINUTE', requestsPerUnit: 5 }],
      ['team/web', { unit: 'MINUTE', requestsPerUnit: 5 }],
    ]);
    const web = result.outcomes.find((o) => o.resource.metadata.name === 'web');
    expect(web?.rejection?.reason).toBe('Invalid');
    expect(web?.rejection?.message).toMatch(
      /^team\/web: descriptors\[0\]\.rate_limit\.unit: invalid rate limit unit 'fortnight'/,
    );
    expect(web?.servedGeneration).toBe(1);
    const status = desiredStatus(web!, '2026-11-22T12:00:00Z');
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Accepted', 'False', 'Invalid'],
      ['Ready', 'True', 'ServingPrevious'],
    ]);
    expect(status.observedGeneration).toBe(2);
  });

  it('never serves a new resource that is invalid, and forgets deleted ones', () => {
    const store = new ResourceStore();
    const reconciler = new Reconciler({ gatewayDomain: 'gateway' });
    store.upsert(resource('RateLimitConfig', 'bad', { descriptors: [] }));
    let result = reconciler.reconcile(store).RateLimitConfig;
    expect(result.resources).toEqual([]);
    expect(result.outcomes[0]?.rejection?.message).toBe(
      'team/bad: domain: config file cannot have empty domain',
    );
    store.remove('RateLimitConfig', 'team/bad');
    result = reconciler.reconcile(store).RateLimitConfig;
    expect(result.outcomes).toEqual([]);
  });

  it('rejects an ApiRoute whose method and path an older one serves, and an InboxEndpoint reusing an id', () => {
    const store = new ResourceStore();
    const routes = (name: string) => ({
      prefix: 'v1',
      routes: [{ name, method: 'GET', path: 'users', handler: 'Users.list' }],
    });
    store.upsert(resource('ApiRoute', 'old', routes('list'), { created: '2026-01-01T00:00:00Z' }));
    store.upsert(resource('ApiRoute', 'new', routes('list2'), { created: '2026-02-01T00:00:00Z' }));
    const id = 'AAAAAAAAAAAAAAAAAAAAAAAA';
    store.upsert(
      resource('InboxEndpoint', 'hook-a', { endpointId: id }, { created: '2026-01-01T00:00:00Z' }),
    );
    store.upsert(
      resource('InboxEndpoint', 'hook-b', { endpointId: id }, { created: '2026-03-01T00:00:00Z' }),
    );
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store);
    expect(result.ApiRoute.resources.map((r) => r.name)).toEqual(['team/old']);
    expect(result.ApiRoute.outcomes[1]?.rejection?.message).toBe(
      'GET /v1/users is already served by team/old, which is older',
    );
    expect(result.InboxEndpoint.resources.map((r) => r.name)).toEqual(['team/hook-a']);
    expect(result.InboxEndpoint.outcomes[1]?.rejection?.message).toBe(
      `endpoint id '${id}' is already used by team/hook-a, which is older`,
    );
  });
});

describe('claims lost to an older resource', () => {
  const route = (method: string, path: string) => ({
    name: `${method.toLowerCase()}-${path}`,
    method,
    path,
    handler: 'A.b',
  });
  const older = { created: '2026-01-01T00:00:00Z' };
  const newer = { created: '2026-02-01T00:00:00Z' };

  it('names a route without prefix by its method and path', () => {
    const store = new ResourceStore();
    store.upsert(resource('ApiRoute', 'old', { routes: [route('GET', 'users')] }, older));
    store.upsert(resource('ApiRoute', 'new', { routes: [route('GET', 'users')] }, newer));
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).ApiRoute;
    expect(result.outcomes[1]?.rejection?.message).toBe(
      'GET /users is already served by team/old, which is older',
    );
  });

  it('stops serving the last good generation of a newer resource once an older one claims any of it', () => {
    const store = new ResourceStore();
    const reconciler = new Reconciler({ gatewayDomain: 'gateway' });
    store.upsert(resource('ApiRoute', 'old', { routes: [route('GET', 'old')] }, older));
    store.upsert(resource('ApiRoute', 'new', { routes: [route('GET', 'a'), route('GET', 'b')] }, newer));
    expect(reconciler.reconcile(store).ApiRoute.resources.map((r) => r.name)).toEqual([
      'team/old',
      'team/new',
    ]);
    store.upsert(resource('ApiRoute', 'old', { routes: [route('GET', 'a')] }, { ...older, generation: 2 }));
    const result = reconciler.reconcile(store).ApiRoute;
    expect(result.resources.map((r) => r.name)).toEqual(['team/old']);
    expect(result.outcomes[1]).toMatchObject({
      rejection: { reason: 'Conflict', message: 'GET /a is already served by team/old, which is older' },
      servedGeneration: undefined,
    });
  });
});

describe('ApiRoute roles', () => {
  it("carries a route's roles to the xDS message", () => {
    const store = new ResourceStore();
    const spec = {
      routes: [{ name: 'r', method: 'GET', path: 'reports', handler: 'A.b', roles: ['auditor'] }],
    };
    store.upsert(resource('ApiRoute', 'reports', spec));
    const [served] = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).ApiRoute.resources;
    const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
    const decoded = codec.decode(served?.value ?? new Uint8Array()) as { routes: Array<{ roles: string[] }> };
    expect(decoded.routes[0]?.roles).toEqual(['auditor']);
  });
});

describe('the gateway rate-limit domain', () => {
  it('is generated from ApiRoute rate limits and reserved against RateLimitConfigs', () => {
    const store = new ResourceStore();
    store.upsert(
      resource('ApiRoute', 'users', {
        routes: [
          {
            name: 'get-user',
            method: 'GET',
            path: 'users/{id}',
            handler: 'Users.get',
            rateLimit: {
              requestsPerUnit: 60,
              unit: 'minute',
              descriptors: [{ key: 'client', from: 'remoteAddress' }],
            },
          },
          {
            name: 'list',
            method: 'GET',
            path: 'users',
            handler: 'Users.list',
            rateLimit: { requestsPerUnit: 5, unit: 'second' },
          },
          { name: 'open', method: 'GET', path: 'open', handler: 'Users.list' },
        ],
      }),
    );
    store.upsert(resource('RateLimitConfig', 'sneaky', limit('gateway')));
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).RateLimitConfig;
    expect(result.outcomes[0]?.rejection).toEqual({
      reason: 'Conflict',
      message: "domain 'gateway' is already defined by the gateway's ApiRoute rate limits, which is older",
    });
    expect(result.resources.map((r) => rlc.decode(r.value))).toEqual([
      {
        name: 'portcullis/gateway-routes',
        domain: 'gateway',
        descriptors: [
          {
            key: 'route',
            value: 'team/users/get-user',
            descriptors: [{ key: 'client', rateLimit: { unit: 'MINUTE', requestsPerUnit: 60 } }],
          },
          { key: 'route', value: 'team/users/list', rateLimit: { unit: 'SECOND', requestsPerUnit: 5 } },
        ],
      },
    ]);
  });
});

describe('desiredStatus', () => {
  it('says what is accepted and served in each condition', () => {
    const r = resource('RateLimitConfig', 'web', limit('web'), { generation: 3 });
    const now = '2026-11-22T00:00:01Z';
    const conditions = (servedGeneration: number | undefined, rejected: boolean) =>
      desiredStatus(
        {
          resource: r,
          rejection: rejected ? { reason: 'Invalid', message: 'bad unit' } : undefined,
          servedGeneration,
        },
        now,
      ).conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]);
    expect(conditions(3, false)).toEqual([
      ['Accepted', 'True', 'Accepted', 'the specification is valid', 3],
      ['Ready', 'True', 'Served', 'generation 3 is served', 3],
    ]);
    expect(conditions(undefined, true)).toEqual([
      ['Accepted', 'False', 'Invalid', 'bad unit', 3],
      ['Ready', 'False', 'NotServed', 'no generation of this resource is served', 3],
    ]);
    expect(conditions(2, true)?.[1]).toEqual([
      'Ready',
      'True',
      'ServingPrevious',
      'generation 2 is still served; generation 3 was rejected',
      3,
    ]);
  });

  it('moves lastTransitionTime of the condition whose status changed only', () => {
    const r = resource('RateLimitConfig', 'web', limit('web'));
    const first = desiredStatus({ resource: r, rejection: undefined, servedGeneration: undefined }, 'T1');
    const served = desiredStatus(
      { resource: { ...r, status: first }, rejection: undefined, servedGeneration: 1 },
      'T2',
    );
    expect(served.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Accepted', 'True', 'T1'],
      ['Ready', 'True', 'T2'],
    ]);
  });

  it('reports a change of any field, whatever the order of the conditions', () => {
    const r = resource('RateLimitConfig', 'web', limit('web'));
    const status = desiredStatus({ resource: r, rejection: undefined, servedGeneration: 1 }, 'T1');
    expect(isStatusChanged(r, status)).toBe(true);
    const shown = { ...r, status: { ...status, conditions: [...(status.conditions ?? [])].reverse() } };
    expect(isStatusChanged(shown, status)).toBe(false);
    const [accepted, ready] = status.conditions ?? [];
    const reworded = { ...r, status: { ...status, conditions: [{ ...accepted!, message: 'x' }, ready!] } };
    expect(isStatusChanged(reworded, status)).toBe(true);
    expect(isStatusChanged({ ...r, status: { ...status, observedGeneration: 0 } }, status)).toBe(true);
  });

  it('keeps lastTransitionTime while a condition keeps its status, and reports no change then', () => {
    const r = resource('RateLimitConfig', 'web', limit('web'));
    const first = desiredStatus(
      { resource: r, rejection: undefined, servedGeneration: 1 },
      '2026-11-22T00:00:01Z',
    );
    const again = desiredStatus(
      { resource: { ...r, status: first }, rejection: undefined, servedGeneration: 1 },
      '2026-11-22T09:00:00Z',
    );
    expect(again).toEqual(first);
    expect(isStatusChanged({ ...r, status: first }, again)).toBe(false);
    const rejected = desiredStatus(
      {
        resource: { ...r, status: first },
        rejection: { reason: 'Invalid', message: 'x' },
        servedGeneration: undefined,
      },
      '2026-11-22T10:00:00Z',
    );
    expect(rejected.conditions?.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Accepted', 'False', '2026-11-22T10:00:00Z'],
      ['Ready', 'False', '2026-11-22T10:00:00Z'],
    ]);
  });
});

describe("an InboxEndpoint's signature secret", () => {
  const inbox = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint');
  const ID = 'c2lnbmVkLWVuZHBvaW50LWlkLTAx';
  const hook = (secretRef: Record<string, string>, provider = 'stripe') =>
    resource('InboxEndpoint', 'hook', { endpointId: ID, signature: { provider, secretRef } });
  const secretOf = (value: string) => new Map([['whsec', Buffer.from(value)]]);
  const served = (store: ResourceStore) => {
    const result = new Reconciler({ gatewayDomain: 'gateway' }).reconcile(store).InboxEndpoint;
    const message = inbox.decode(result.resources[0]?.value ?? new Uint8Array()) as { signature?: unknown };
    return { signature: message.signature, refs: result.outcomes[0]?.refs };
  };

  it('is read from the named key of a Secret in its namespace and sent with the preset', () => {
    const store = new ResourceStore();
    store.upsert(hook({ name: 'stripe', key: 'whsec' }));
    store.replaceSecrets(new Map([['team/stripe', secretOf('whsec_abc')]]));
    expect(served(store)).toEqual({
      signature: { provider: 'stripe', toleranceSeconds: 300, secret: 'whsec_abc' },
      refs: { resolved: true, message: "Secret team/stripe, key 'whsec', is read" },
    });
  });

  it('reads the Secret again on each reconcile', () => {
    const store = new ResourceStore();
    const reconciler = new Reconciler({ gatewayDomain: 'gateway' });
    const signatureOf = () => {
      const [served] = reconciler.reconcile(store).InboxEndpoint.resources;
      return (inbox.decode(served?.value ?? new Uint8Array()) as { signature?: { secret?: string } })
        .signature?.secret;
    };
    store.upsert(hook({ name: 'stripe', key: 'whsec' }));
    store.replaceSecrets(new Map([['team/stripe', secretOf('whsec_abc')]]));
    expect(signatureOf()).toBe('whsec_abc');
    store.replaceSecrets(new Map([['team/stripe', secretOf('whsec_def')]]));
    expect(signatureOf()).toBe('whsec_def');
  });

  it('leaves the endpoint served unchecked, saying why, when the Secret is missing or unusable', () => {
    const store = new ResourceStore();
    store.upsert(hook({ name: 'stripe', key: 'whsec' }));
    const refs = (secrets: Map<string, Map<string, Buffer>>) => {
      store.replaceSecrets(secrets);
      const s = served(store);
      expect(s.signature).toBeUndefined();
      return s.refs;
    };
    expect(refs(new Map())).toEqual({
      resolved: false,
      reason: 'SecretNotFound',
      message: 'Secret team/stripe not found',
    });
    // a Secret of the same name in another namespace is not it
    expect(refs(new Map([['other/stripe', secretOf('whsec_abc')]]))).toMatchObject({
      reason: 'SecretNotFound',
    });
    expect(refs(new Map([['team/stripe', new Map([['other', Buffer.from('x')]])]]))).toEqual({
      resolved: false,
      reason: 'InvalidSecret',
      message: "Secret team/stripe has no key 'whsec'",
    });
    expect(refs(new Map([['team/stripe', secretOf('whsec_abc\n')]]))).toMatchObject({
      reason: 'InvalidSecret',
      message: expect.stringContaining("key 'whsec' starts or ends with white space") as unknown,
    });
    expect(refs(new Map([['team/stripe', new Map([['whsec', Buffer.from([0xff, 0xfe])]])]]))).toMatchObject({
      message: "Secret team/stripe: key 'whsec' is not UTF-8 text",
    });
    store.upsert(hook({ name: 'stripe', key: 'whsec' }, 'standard-webhooks'));
    expect(refs(new Map([['team/stripe', secretOf('whsec_not base64')]]))).toMatchObject({
      message: "Secret team/stripe: key 'whsec': expected whsec_ followed by base64, as the sender shows it",
    });
  });

  it('shows as a ResolvedRefs condition, only on resources that name a Secret', () => {
    const r = hook({ name: 'stripe', key: 'whsec' });
    const now = '2026-11-27T00:00:00Z';
    const status = desiredStatus(
      {
        resource: r,
        rejection: undefined,
        servedGeneration: 1,
        refs: { resolved: false, reason: 'SecretNotFound', message: 'Secret team/stripe not found' },
      },
      now,
    );
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Accepted', 'True', 'Accepted'],
      ['Ready', 'True', 'Served'],
      ['ResolvedRefs', 'False', 'SecretNotFound'],
    ]);
    const read = desiredStatus(
      { resource: r, rejection: undefined, servedGeneration: 1, refs: { resolved: true, message: 'read' } },
      now,
    );
    expect(read.conditions?.[2]).toMatchObject({
      type: 'ResolvedRefs',
      status: 'True',
      reason: 'ResolvedRefs',
    });
    const plain = desiredStatus({ resource: r, rejection: undefined, servedGeneration: 1 }, now);
    expect(plain.conditions?.map((c) => c.type)).toEqual(['Accepted', 'Ready']);
  });
});
