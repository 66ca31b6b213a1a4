import fc from 'fast-check';
import {
  checkAnswer,
  checkRawAnswer,
  createHttpClient,
  describeRequest,
  fuzz,
  fuzzTimeoutMs,
  httpPath,
  httpRequest,
  rawRequestBytes,
  type HttpClient,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// issue 15: the HTTP surfaces of the service (`/json`, `/healthcheck`, the debug port) under a few thousand
// generated requests from a fixed seed: never a 5xx, never a stack or an internal name in a body.

const CONFIG = `domain: fuzz
descriptors:
  - key: client
    rate_limit: {unit: second, requests_per_unit: 2}
  - key: free
    rate_limit: {unlimited: true}
  - key: path
    value: /login
    descriptors:
      - key: user
        rate_limit: {unit: minute, requests_per_unit: 1, name: login}
`;

const UNITS = [
  'SECOND',
  'MINUTE',
  'HOUR',
  'DAY',
  'WEEK',
  'MONTH',
  'YEAR',
  'UNKNOWN',
  'FORTNIGHT',
  0,
  3,
  7,
  8,
  -1,
];
const KEYS = ['client', 'free', 'path', 'user', 'remote_address', ''];

/** A value of the right type most of the time, anything JSON otherwise: the decoder's every branch. */
const sometimesWrong = <T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });

const uintLike = fc.oneof(
  fc.nat(),
  fc.constantFrom(0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 1, 2 ** 64 - 1, -1, 1.5, 1e308),
  fc.constantFrom('0', '7', '18446744073709551615', '9007199254740993', '-1', '1e3', ' 1', '0x10', ''),
);

const entry = fc.record(
  {
    key: sometimesWrong(fc.constantFrom(...KEYS)),
    value: sometimesWrong(fc.oneof(fc.constantFrom('/login', 'a', ''), fc.string({ maxLength: 30 }))),
  },
  { requiredKeys: [] },
);

const descriptor = fc.record(
  {
    entries: sometimesWrong(fc.array(entry, { maxLength: 4 })),
    limit: sometimesWrong(
      fc.record(
        { requestsPerUnit: sometimesWrong(uintLike), unit: sometimesWrong(fc.constantFrom(...UNITS)) },
        { requiredKeys: [] },
      ),
    ),
    hitsAddend: sometimesWrong(uintLike),
    hits_addend: uintLike,
  },
  { requiredKeys: [] },
);

/** A request the decoder takes: the service's own paths (limits, overrides, addends, 429s) are reached. */
const validRequest = fc.record(
  {
    domain: fc.constantFrom('fuzz', 'other'),
    descriptors: fc.array(
      fc.record(
        {
          entries: fc.array(
            fc.record({ key: fc.constantFrom(...KEYS), value: fc.constantFrom('/login', 'a', 'b', '') }),
            { minLength: 1, maxLength: 3 },
          ),
          limit: fc.record({
            requestsPerUnit: fc.nat({ max: 5 }),
            unit: fc.constantFrom('SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR', 0, 7),
          }),
          hits_addend: fc.oneof(fc.nat({ max: 3 }), fc.constantFrom('2', '9007199254740991')),
        },
        { requiredKeys: ['entries'] },
      ),
      { minLength: 1, maxLength: 3 },
    ),
    hitsAddend: fc.nat({ max: 3 }),
  },
  { requiredKeys: ['domain', 'descriptors'] },
);

/** `RateLimitRequest`-shaped JSON: right fields, wrong types, snake_case, unknown fields, nulls. */
const mangledRequest = fc.record(
  {
    domain: sometimesWrong(fc.constantFrom('fuzz', 'other', '')),
    descriptors: sometimesWrong(fc.array(descriptor, { maxLength: 4 })),
    hitsAddend: sometimesWrong(uintLike),
    hits_addend: uintLike,
    unknownField: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

describe('ratelimit HTTP fuzz (issue 15)', { timeout: fuzzTimeoutMs() }, () => {
  let h: Harness;
  let http: HttpClient;
  let debug: HttpClient;

  beforeAll(async () => {
    h = await startHarness({ 'fuzz.yaml': CONFIG }, { LIMIT_RESPONSE_HEADERS_ENABLED: 'true' });
    http = createHttpClient(h.app.ports.http);
    debug = createHttpClient(h.app.ports.debug);
  });
  afterAll(async () => {
    http.close();
    debug.close();
    await h.close();
  });

  it('answers RateLimitRequest-shaped JSON with 200, 429 or 400, whatever the fields hold', async () => {
    await fuzz(
      fc.tuple(
        fc.oneof({ weight: 3, arbitrary: validRequest }, { weight: 1, arbitrary: mangledRequest }),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', undefined),
      ),
      async ([request, contentType]) => {
        const body = JSON.stringify(request);
        const a = await http.send({
          method: 'POST',
          path: '/json',
          headers: contentType === undefined ? {} : { 'content-type': contentType },
          body,
        });
        if (![200, 429, 400].includes(a.status)) return `status ${a.status}: ${a.body}`;
        return checkAnswer(a, { sent: body });
      },
      { numRuns: 1200 },
    );
  });

  it('answers any method, path, headers and body on the HTTP port without a 5xx', async () => {
    await fuzz(
      httpRequest(['/json', '/healthcheck', '/', '/json/']),
      async (spec) => checkAnswer(await http.send(spec), { sent: describeRequest(spec) }),
      { numRuns: 1000 },
    );
  });

  it('answers any method and path on the debug port without a 5xx', async () => {
    await fuzz(
      httpRequest(['/', '/rlconfig', '/stats', '/metrics', '/health']),
      async (spec) => checkAnswer(await debug.send(spec), { sent: describeRequest(spec) }),
      { numRuns: 500 },
    );
  });

  it('answers malformed HTTP on either port with a 4xx or a close', async () => {
    const ports = [h.app.ports.http, h.app.ports.debug];
    await fuzz(
      fc.tuple(fc.constantFrom(...ports), rawRequestBytes(httpPath(['/json', '/healthcheck', '/stats']))),
      ([port, bytes]) => checkRawAnswer(port, bytes),
      { numRuns: 300 },
    );
  });

  it('still decides and reports healthy afterwards', async () => {
    const r = await h.json({ domain: 'fuzz', descriptors: [{ entries: [{ key: 'free', value: 'x' }] }] });
    expect([r.status, r.body]).toMatchObject([200, { overallCode: 'OK' }]);
    expect(await h.get('/healthcheck')).toEqual({ status: 200, text: 'OK' });
    expect((await h.get('/health', 'debug')).status).toBe(200);
  });
});
