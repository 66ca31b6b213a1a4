import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { sendRawBytes, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const CONFIG = `domain: web
descriptors:
  - key: client
    rate_limit: {unit: hour, requests_per_unit: 3}
  - key: free
    rate_limit: {unlimited: true}
  - key: path
    value: /login
    descriptors:
      - key: user
        rate_limit: {unit: minute, requests_per_unit: 2, name: login}
`;

const entries = (...pairs: Array<[string, string]>) => pairs.map(([key, value]) => ({ key, value }));

describe.each([
  ['memory', {}],
  ['redis', { BACKEND_TYPE: 'redis' }],
] as const)('ratelimit over real sockets, %s backend', (backend, env) => {
  let h: Harness;
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    redis = backend === 'redis' ? await startRedis() : undefined;
    h = await startHarness(
      { 'web.yaml': CONFIG },
      {
        ...env,
        ...(redis ? { KVSTORE_URL: redis.address, CACHE_KEY_PREFIX: 'test:' } : {}),
        LIMIT_RESPONSE_HEADERS_ENABLED: 'true',
      },
    );
  });
  afterAll(async () => {
    await h.close();
    await redis?.stop();
  });

  it('answers ShouldRateLimit over gRPC until the limit, then OVER_LIMIT', async () => {
    const ask = () =>
      h.rls.shouldRateLimit({ domain: 'web', descriptors: [{ entries: entries(['client', 'grpc']) }] });
    const first = await ask();
    expect(first).toMatchObject({
      overallCode: 'OK',
      statuses: [{ code: 'OK', currentLimit: { requestsPerUnit: 3, unit: 'HOUR' }, limitRemaining: 2 }],
      responseHeadersToAdd: [
        { key: 'RateLimit-Limit', value: '3' },
        { key: 'RateLimit-Remaining', value: '2' },
        { key: 'RateLimit-Reset' },
      ],
    });
    const reset = (first.statuses as Array<{ durationUntilReset: { seconds: number } }>)[0]
      ?.durationUntilReset.seconds;
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(3600);
    await ask();
    await ask();
    expect(await ask()).toMatchObject({ overallCode: 'OVER_LIMIT', statuses: [{ code: 'OVER_LIMIT' }] });
  });

  it('honours the per-descriptor hits_addend (google.protobuf.UInt64Value) on the wire', async () => {
    const r = await h.rls.shouldRateLimit({
      domain: 'web',
      hitsAddend: 1,
      descriptors: [
        { entries: entries(['client', 'addend']), hitsAddend: { value: 0 } },
        { entries: entries(['client', 'addend2']), hitsAddend: { value: 3 } },
      ],
    });
    expect(r.statuses).toMatchObject([{ limitRemaining: 3 }, { limitRemaining: 0 }]);
  });

  it.each([
    ['2^64−1', '18446744073709551615'],
    ['2^53+1', '9007199254740993'],
    ['2^53', '9007199254740992'],
  ])(
    'refuses a hits_addend of %s, which no counter store adds exactly, as INVALID_ARGUMENT',
    async (_n, value) => {
      const err = await h.rls
        .shouldRateLimit({
          domain: 'web',
          descriptors: [
            { entries: entries(['client', 'huge']) },
            { entries: entries(['client', 'huge']), hitsAddend: { value } },
          ],
        })
        .catch((e: unknown) => e);
      expect((err as ServiceError).code).toBe(GrpcStatus.INVALID_ARGUMENT);
      expect((err as ServiceError).details).toBe(
        'descriptors[1].hits_addend: expected an unsigned integer ≤ 9007199254740991',
      );
      for (const hitsAddend of [value, Number(value)]) {
        const res = await h.json({
          domain: 'web',
          descriptors: [{ entries: entries(['client', 'huge']), hitsAddend }],
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          code: 'REQUEST_INVALID',
          error: 'descriptors[0].hitsAddend: expected an unsigned integer ≤ 9007199254740991',
        });
      }
    },
  );

  it('counts a hits_addend of 2^53−1 exactly', async () => {
    const descriptors = [
      { entries: entries(['client', 'largest']), hitsAddend: { value: '9007199254740991' } },
    ];
    const r = await h.rls.shouldRateLimit({ domain: 'web', descriptors });
    expect(r).toMatchObject({
      overallCode: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', limitRemaining: 0 }],
    });
    const json = await h.json({
      domain: 'web',
      descriptors: [{ entries: entries(['client', 'largest-json']), hitsAddend: '9007199254740991' }],
    });
    expect(json.status).toBe(429);
  });

  it('applies a request-side limit override', async () => {
    const r = await h.rls.shouldRateLimit({
      domain: 'web',
      descriptors: [
        { entries: entries(['client', 'override']), limit: { requestsPerUnit: 1, unit: 'SECOND' } },
      ],
    });
    expect(r.statuses).toMatchObject([
      { currentLimit: { requestsPerUnit: 1, unit: 'SECOND' }, limitRemaining: 0 },
    ]);
  });

  it('takes WEEK (7) in an override, which envoy.type.v3.RateLimitUnit does not name yet', async () => {
    const r = await h.rls.shouldRateLimit({
      domain: 'web',
      descriptors: [{ entries: entries(['client', 'weekly']), limit: { requestsPerUnit: 5, unit: 7 } }],
    });
    expect(r.statuses).toMatchObject([
      { currentLimit: { requestsPerUnit: 5, unit: 'WEEK' }, limitRemaining: 4 },
    ]);
    const json = await h.json({
      domain: 'web',
      descriptors: [{ entries: entries(['client', 'weekly']), limit: { requestsPerUnit: 5, unit: 'WEEK' } }],
    });
    expect(json.body).toMatchObject({ statuses: [{ currentLimit: { unit: 'WEEK' }, limitRemaining: 3 }] });
  });

  it('answers INVALID_ARGUMENT for an empty domain', async () => {
    const err = await h.rls
      .shouldRateLimit({ domain: '', descriptors: [{ entries: entries(['a', 'b']) }] })
      .catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect((err as ServiceError).details).toBe('rate limit domain must not be empty');
  });

  it('answers /json with 200, then 429 over the limit, in the proto3 JSON mapping', async () => {
    const body = {
      domain: 'web',
      descriptors: [{ entries: entries(['path', '/login'], ['user', 'alice']) }],
    };
    const ok = await h.json(body);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
    expect(ok.body).toMatchObject({
      overallCode: 'OK',
      statuses: [
        {
          code: 'OK',
          currentLimit: { name: 'login', requestsPerUnit: 2, unit: 'MINUTE' },
          limitRemaining: 1,
        },
      ],
    });
    expect(
      (ok.body as { statuses: Array<{ durationUntilReset: string }> }).statuses[0]?.durationUntilReset,
    ).toMatch(/^\d+s$/);
    await h.json(body);
    const over = await h.json(body);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ overallCode: 'OVER_LIMIT', statuses: [{ code: 'OVER_LIMIT' }] });
    expect((over.body as { statuses: Array<Record<string, unknown>> }).statuses[0]).not.toHaveProperty(
      'limitRemaining',
    );
  });

  it('answers unlimited and unknown domains as upstream does', async () => {
    expect(
      (await h.json({ domain: 'web', descriptors: [{ entries: entries(['free', 'x']) }] })).body,
    ).toEqual({
      overallCode: 'OK',
      statuses: [{ code: 'OK', limitRemaining: 4294967295 }],
    });
    expect((await h.json({ domain: 'nope', descriptors: [{ entries: entries(['a', 'b']) }] })).body).toEqual({
      overallCode: 'OK',
      statuses: [{ code: 'OK' }],
    });
  });

  it.each([
    ['malformed JSON', '{"domain": ', 400, 'REQUEST_INVALID', /^body is not valid JSON/],
    ['an empty body', '', 400, 'REQUEST_INVALID', /^body is empty/],
    [
      'a missing domain',
      JSON.stringify({ descriptors: [{ entries: [{ key: 'a', value: 'b' }] }] }),
      400,
      'REQUEST_INVALID',
      /^rate limit domain must not be empty$/,
    ],
    [
      'no descriptors',
      JSON.stringify({ domain: 'web' }),
      400,
      'REQUEST_INVALID',
      /^rate limit descriptor list must not be empty$/,
    ],
    [
      'an unknown field',
      JSON.stringify({ domain: 'web', descriptors: [], extra: 1 }),
      400,
      'REQUEST_INVALID',
      /^extra: unknown field$/,
    ],
    [
      'a 2 MiB body',
      JSON.stringify({ domain: 'web', descriptors: ['x'.repeat(2 * 1024 * 1024)] }),
      413,
      'BODY_TOO_LARGE',
      /./,
    ],
  ])('rejects %s with a JSON error', async (_name, raw, status, code, message) => {
    const res = await h.json(raw);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ code });
    expect((res.body as { error: string }).error).toMatch(message);
  });

  // issue 18: the direct route (JSON, form) answers as fastify's route (any other type) does
  it.each([
    ['application/json', `Content-Length: ${2 * 1024 * 1024}\r\n\r\n`],
    ['text/plain', `Content-Length: ${2 * 1024 * 1024}\r\n\r\n`],
    [
      'application/json',
      `Transfer-Encoding: chunked\r\n\r\n${(2 ** 20 + 1).toString(16)}\r\n${'x'.repeat(2 ** 20 + 1)}`,
    ],
    [
      'text/plain',
      `Transfer-Encoding: chunked\r\n\r\n${(2 ** 20 + 1).toString(16)}\r\n${'x'.repeat(2 ** 20 + 1)}`,
    ],
  ])(
    'answers a /json body of type %s over 1 MiB with 413, then closes the connection',
    async (type, rest) => {
      const { statuses, text } = await sendRawBytes(
        h.app.ports.http,
        `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\n${rest}`,
        { halfClose: false },
      );
      expect(statuses).toEqual([413]);
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(text).toContain('"code":"BODY_TOO_LARGE"');
    },
  );

  it.each([
    ['malformed JSON', 'application/json', '{"domain": '],
    ['malformed JSON', 'text/plain', '{"domain": '],
    ['JSON nested too deep', 'application/json', '['.repeat(100)],
    ['JSON nested too deep', 'text/plain', '['.repeat(100)],
  ])('answers %s of type %s with 400, then closes the connection', async (_name, type, body) => {
    const { statuses, text } = await sendRawBytes(
      h.app.ports.http,
      `POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      { halfClose: false },
    );
    expect(statuses).toEqual([400]);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('issue 15: refuses a /json body nested deeper than HTTP_MAX_BODY_DEPTH with 400, whatever its type', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`http://127.0.0.1:${h.app.ports.http}/json`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: deep,
      });
      expect([res.status, await res.json()]).toEqual([
        400,
        { error: 'body is nested deeper than 64 levels', code: 'BODY_TOO_DEEP' },
      ]);
    }
    // 64 levels are parsed, then refused for what they hold
    const atLimit = await h.json(`${'['.repeat(64)}${']'.repeat(64)}`);
    expect([atLimit.status, (atLimit.body as { code: string }).code]).toEqual([400, 'REQUEST_INVALID']);
  });

  it('answers 405 with Allow for other methods on /json', async () => {
    const res = await fetch(`http://127.0.0.1:${h.app.ports.http}/json`, { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('serves /healthcheck and the debug endpoints', async () => {
    expect(await h.get('/healthcheck')).toEqual({ status: 200, text: 'OK' });
    expect((await h.get('/', 'debug')).text).toContain('/rlconfig');
    expect((await h.get('/rlconfig', 'debug')).text).toContain(
      'web.client: unit=HOUR requests_per_unit=3, shadow_mode: false',
    );
    const stats = (await h.get('/stats', 'debug')).text;
    expect(stats).toMatch(/^ratelimit\.service\.rate_limit\.web\.client\.total_hits: \d+$/m);
    expect(stats).toContain('ratelimit.service.config_load_success: 1');
    const metrics = (await h.get('/metrics', 'debug')).text;
    expect(metrics).toMatch(
      /^ratelimit_service_rate_limit_total_hits\{domain="web",descriptor="client"\} \d+$/m,
    );
    expect(metrics).toContain('process_cpu_seconds_total');
  });

  if (backend !== 'redis') return;

  it('stores counters under upstream cache keys with a one-unit expiry', async () => {
    const client = new Redis({ host: '127.0.0.1', port: redis?.port ?? 0 });
    try {
      await h.rls.shouldRateLimit({
        domain: 'web',
        descriptors: [{ entries: entries(['client', 'keys']) }],
      });
      const window = Math.floor(Date.now() / 1000 / 3600) * 3600;
      const key = `test:web_client_keys_${window}`;
      expect(await client.get(key)).toBe('1');
      const ttl = await client.ttl(key);
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600 + 300);
    } finally {
      client.disconnect();
    }
  });
});
