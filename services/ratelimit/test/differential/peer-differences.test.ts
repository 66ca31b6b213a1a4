import { describe, expect, it } from 'vitest';
import { comparableGrpc } from './compare.js';
import { usePair } from './pair.js';

// Every difference the differential suite found and kept, each answer of both pinned (docs/parity.md,
// "Upstream parity"). Two kinds: deliberate choices, and features of upstream newer than the peer we can build
// (github.com/envoyproxy/ratelimit 3fb7025, 2026-01-22, the newest on the Go module proxy), which ours
// follows as upstream has them since (notes: upstream f2fb1577).

const CONFIG = `domain: diff
descriptors:
  - key: q
    quota_mode: true
    rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: h
    rate_limit: { unit: hour, requests_per_unit: 5 }
  - key: path
    value: /api/*/x
    rate_limit: { unit: hour, requests_per_unit: 1 }
`;

const d = (key: string, value: string): object => ({ entries: [{ key, value }] });
const BAD_REQUEST = { status: 400, contentType: 'text/plain; charset=utf-8', body: 'Bad Request\n' };

describe('differential: the differences kept, both answers pinned', () => {
  const pair = usePair({ files: { 'diff.yaml': CONFIG } });

  it('a request without domain or descriptors: upstream UNKNOWN, ours INVALID_ARGUMENT, the same message', async () => {
    for (const [request, message] of [
      [{ domain: '', descriptors: [d('h', '1')] }, 'rate limit domain must not be empty'],
      [{ domain: 'diff', descriptors: [] }, 'rate limit descriptor list must not be empty'],
    ] as const) {
      const answers = await pair.ask(request);
      expect(answers.upstream.error).toEqual({ code: 2, details: message });
      expect(answers.ours.error).toEqual({ code: 3, details: message });
    }
  });

  it('/json refusals: upstream a bare "Bad Request", ours the reason as {error, code}', async () => {
    for (const [body, error] of [
      ['{', /^body is not valid JSON: /],
      ['', /^body is empty; expected a RateLimitRequest in JSON$/],
      [JSON.stringify({ domain: 'diff', descriptors: [d('h', '1')], bogus: 1 }), /^bogus: unknown field$/],
      [JSON.stringify({ domain: '', descriptors: [d('h', '1')] }), /^rate limit domain must not be empty$/],
    ] as const) {
      const answers = await pair.askJson(body);
      expect(answers.upstream).toEqual(BAD_REQUEST);
      expect(answers.ours.status).toBe(400);
      expect(JSON.parse(answers.ours.body)).toEqual({
        error: expect.stringMatching(error) as unknown,
        code: 'REQUEST_INVALID',
      });
    }
  });

  it('GET /json: upstream 400, ours 405 with Allow: POST', async () => {
    const answers = await pair.get('/json');
    expect(answers.upstream).toEqual(BAD_REQUEST);
    expect(answers.ours).toMatchObject({
      status: 405,
      body: JSON.stringify({ error: 'use POST for /json', code: 'METHOD_NOT_ALLOWED' }),
    });
  });

  it('quota_mode: the peer turns a quota descriptor over its limit into OK; ours keeps OVER_LIMIT, and the request is over when every quota descriptor is', async () => {
    await pair.ask({ domain: 'diff', descriptors: [d('q', 'a')] });
    const over = await pair.ask({ domain: 'diff', descriptors: [d('q', 'a'), d('h', 'a')] });
    expect(comparableGrpc(over.upstream).decision).toMatchObject({
      overallCode: 'OK',
      statuses: [
        { code: 'OK', limitRemaining: 0 },
        { code: 'OK', limitRemaining: 4 },
      ],
    });
    expect(comparableGrpc(over.ours).decision).toMatchObject({
      overallCode: 'OVER_LIMIT',
      statuses: [
        { code: 'OVER_LIMIT', limitRemaining: 0 },
        { code: 'OK', limitRemaining: 4 },
      ],
    });
  });

  it('a `*` inside a value: the peer takes it literally, ours as a wildcard', async () => {
    const request = { domain: 'diff', descriptors: [d('path', '/api/anything/x')] };
    await pair.ask(request);
    const second = await pair.ask(request);
    expect(comparableGrpc(second.upstream).decision).toEqual({
      overallCode: 'OK',
      statuses: [{ code: 'OK', limitRemaining: 0 }],
    });
    expect(comparableGrpc(second.ours).decision).toMatchObject({
      overallCode: 'OVER_LIMIT',
      statuses: [{ code: 'OVER_LIMIT', currentLimit: { requestsPerUnit: 1, unit: 'HOUR' } }],
    });
  });

  it('a rule with `metadata`: the peer refuses the file, ours loads it', async () => {
    const outcome = await pair.writeConfigFile(
      'metadata.yaml',
      'domain: meta\ndescriptors:\n  - key: k\n    metadata: { service: a }\n    rate_limit: { unit: hour, requests_per_unit: 1 }\n',
    );
    expect(outcome).toEqual({ upstream: 'refused', ours: 'loaded' });
  });
});

describe('differential: an override without a unit', () => {
  const pair = usePair({ files: { 'diff.yaml': CONFIG } });

  it('takes the peer down (the connection drops and the process exits); ours answers INVALID_ARGUMENT', async () => {
    const answers = await pair.ask({
      domain: 'diff',
      descriptors: [{ ...d('h', 'x'), limit: { requestsPerUnit: 3 } }],
    });
    expect(answers.upstream.error?.code).toBe(14);
    expect(pair.output('upstream')).toMatch(/panic/);
    expect(answers.ours.error).toEqual({
      code: 3,
      details:
        'descriptors[0].limit.unit: a limit override needs a unit (one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, YEAR); descriptor (h=x)',
    });
  });
});

describe('differential: near_limit with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT', () => {
  const pair = usePair({
    files: {
      'stop.yaml':
        'domain: stop\ndescriptors:\n  - key: a\n    rate_limit: { unit: hour, requests_per_unit: 10 }\n  - key: b\n    rate_limit: { unit: hour, requests_per_unit: 1 }\n',
    },
    env: { STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true', NEAR_LIMIT_RATIO: '0.5' },
  });

  it('a descriptor held back (its hits not counted) counts near_limit in the peer, not in ours', async () => {
    await pair.ask({ domain: 'stop', descriptors: [{ ...d('a', '1'), hitsAddend: 6 }] });
    for (let i = 0; i < 3; i++) {
      const answers = await pair.ask({ domain: 'stop', descriptors: [d('a', '1'), d('b', '1')] });
      expect(comparableGrpc(answers.ours).decision).toEqual(comparableGrpc(answers.upstream).decision);
    }
    const counters = await pair.counters();
    const near = 'ratelimit.service.rate_limit.stop.a.near_limit';
    // 6 hits, then 7: near_limit once each in both; then twice held back at 7 while b is over, which the peer
    // counts as near again (it takes "before" as the count less hits it did not add) and ours does not
    expect(counters.upstream.get(near)).toBe(4);
    expect(counters.ours.get(near)).toBe(2);
  });

  it('a descriptor held back behind its own counter counts over_limit for the hits it did not add in ours only', async () => {
    // one counter twice: 11 hits go over 10; the next 10 would not, so they are held back (INCRBY 0)
    const answers = await pair.ask({
      domain: 'stop',
      descriptors: [
        { ...d('a', '2'), hitsAddend: 11 },
        { ...d('a', '2'), hitsAddend: 10 },
      ],
    });
    expect(comparableGrpc(answers.ours).decision).toEqual(comparableGrpc(answers.upstream).decision);
    const counters = await pair.counters();
    const over = 'ratelimit.service.rate_limit.stop.a.over_limit';
    // the first: 11 after 0, 1 over in both; the held back one: 11 after what the peer takes as 1 (11 less
    // the 10 hits it did not add), 1 over there, and all its 10 hits over in ours, where the count was 11
    expect(counters.upstream.get(over)).toBe(2);
    expect(counters.ours.get(over)).toBe(11);
  });
});
