import { createHmac, randomUUID } from 'node:crypto';
import { createHttpClient, findInternalDetail } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// issue 15: JWT forms an attacker tries, as a table. Each answers 401 `UNAUTHENTICATED` with one of the
// fixed messages below and nothing else; the controls show the same helpers make a token that passes.
// auth.test.ts already covers alg none (lowercase), a forged signature, a tampered payload, an expired
// token, Basic and revocation; this table adds every other form.

const SECRET = 'j'.repeat(48);
const ISSUER = 'portcullis-gateway';
const AUDIENCE = 'portcullis';
const INVALID = 'Invalid token';
const EXPIRED = 'Token expired';
const BAD_HEADER = 'Invalid Authorization header: expected Bearer <token>';
const MISSING = 'No Authorization Header found';

const b64 = (text: string): string => Buffer.from(text).toString('base64url');
const json = (o: unknown): string => b64(JSON.stringify(o));
const hmac = (alg: 'sha256' | 'sha384' | 'sha512', key: string, input: string): string =>
  createHmac(alg, key).update(input).digest('base64url');
const now = (): number => Math.floor(Date.now() / 1000);

interface Forms {
  /** A valid token's claims for alice, fresh each call. */
  claims(): Record<string, unknown>;
  /** `header.payload.signature` with HS256 under `key` (ours by default), from encoded segments. */
  signRaw(header: string, payload: string, key?: string): string;
  /** The same from objects. */
  sign(header: object, payload: object, key?: string): string;
}

type Case = [name: string, make: (f: Forms) => string, message: string];

const HS256 = { alg: 'HS256', typ: 'JWT' };

/** Tokens sent as `Authorization: Bearer <token>`. */
const TOKEN_CASES: Case[] = [
  ['alg None, no signature', (f) => `${json({ alg: 'None' })}.${json(f.claims())}.`, INVALID],
  ['alg NONE, no signature', (f) => `${json({ alg: 'NONE' })}.${json(f.claims())}.`, INVALID],
  ['alg nOnE, signed anyway', (f) => f.sign({ alg: 'nOnE' }, f.claims()), INVALID],
  ['alg none, without the last dot', (f) => `${json({ alg: 'none' })}.${json(f.claims())}`, INVALID],
  [
    'alg HS384, signed with our key',
    (f) => {
      const input = `${json({ alg: 'HS384' })}.${json(f.claims())}`;
      return `${input}.${hmac('sha384', SECRET, input)}`;
    },
    INVALID,
  ],
  [
    'alg HS512, signed with our key',
    (f) => {
      const input = `${json({ alg: 'HS512' })}.${json(f.claims())}`;
      return `${input}.${hmac('sha512', SECRET, input)}`;
    },
    INVALID,
  ],
  [
    'alg RS256, HMAC-signed with our key (key confusion)',
    (f) => f.sign({ alg: 'RS256' }, f.claims()),
    INVALID,
  ],
  ['alg ES256, HMAC-signed with our key', (f) => f.sign({ alg: 'ES256' }, f.claims()), INVALID],
  ['alg as an array', (f) => f.sign({ alg: ['HS256'] }, f.claims()), INVALID],
  ['no alg', (f) => f.sign({ typ: 'JWT' }, f.claims()), INVALID],
  ['signed with an empty key', (f) => f.sign(HS256, f.claims(), ''), INVALID],
  ['signature one character short', (f) => f.sign(HS256, f.claims()).slice(0, -1), INVALID],
  ['signature one character longer', (f) => `${f.sign(HS256, f.claims())}A`, INVALID],
  ['signature empty', (f) => f.sign(HS256, f.claims()).replace(/(?<=\.)[^.]+$/, ''), INVALID],
  ['two segments', (f) => f.sign(HS256, f.claims()).split('.').slice(0, 2).join('.'), INVALID],
  ['four segments', (f) => `${f.sign(HS256, f.claims())}.AAAA`, INVALID],
  ['five segments (JWE-shaped)', (f) => `${f.sign(HS256, f.claims())}.AAAA.BBBB`, INVALID],
  ['a trailing dot', (f) => `${f.sign(HS256, f.claims())}.`, INVALID],
  [
    'empty header segment',
    (f) => `.${json(f.claims())}.${hmac('sha256', SECRET, `.${json(f.claims())}`)}`,
    INVALID,
  ],
  ['empty payload segment', (f) => f.signRaw(json(HS256), ''), INVALID],
  ['only dots', () => '..', INVALID],
  ['one dot', () => '.', INVALID],
  // answered 200 before issue 15's table: jose decodes leniently (jwt.ts now takes base64url only)
  [
    'base64 with + and / instead of base64url',
    (f) => {
      const header = Buffer.from(JSON.stringify({ ...HS256, pad: '\u00fb\u00ff' })).toString('base64');
      return f.signRaw(header, json(f.claims()));
    },
    INVALID,
  ],
  [
    'padding = on every segment',
    (f) =>
      f
        .sign(HS256, f.claims())
        .split('.')
        .map((s) => `${s}==`)
        .join('.'),
    INVALID,
  ],
  ['header not JSON', (f) => f.signRaw(b64('{alg:HS256}'), json(f.claims())), INVALID],
  ['header a JSON string', (f) => f.signRaw(b64('"HS256"'), json(f.claims())), INVALID],
  ['payload a JSON array', (f) => f.signRaw(json(HS256), b64('[1,2]')), INVALID],
  ['payload null', (f) => f.signRaw(json(HS256), b64('null')), INVALID],
  ['payload not JSON', (f) => f.signRaw(json(HS256), b64('sub=alice')), INVALID],
  [
    'expired beyond the 30 s clock tolerance',
    (f) => f.sign(HS256, { ...f.claims(), exp: now() - 45 }),
    EXPIRED,
  ],
  ['not before an hour from now', (f) => f.sign(HS256, { ...f.claims(), nbf: now() + 3600 }), INVALID],
  ['exp missing', (f) => f.sign(HS256, { ...f.claims(), exp: undefined }), INVALID],
  ['exp a string of digits', (f) => f.sign(HS256, { ...f.claims(), exp: String(now() + 600) }), INVALID],
  ['exp null', (f) => f.sign(HS256, { ...f.claims(), exp: null }), INVALID],
  ['exp negative', (f) => f.sign(HS256, { ...f.claims(), exp: -1 }), EXPIRED],
  // answered 200 before issue 15's table: a token that never expired (jwt.ts now wants an integer)
  [
    'exp 1e400 (Infinity once parsed)',
    (f) => f.signRaw(json(HS256), b64(JSON.stringify(f.claims()).replace(/"exp":\d+/, '"exp":1e400'))),
    INVALID,
  ],
  ['nbf a string', (f) => f.sign(HS256, { ...f.claims(), nbf: '0' }), INVALID],
  ['sub missing', (f) => f.sign(HS256, { ...f.claims(), sub: undefined }), INVALID],
  ['sub a number', (f) => f.sign(HS256, { ...f.claims(), sub: 1 }), INVALID],
  ['sub of no account', (f) => f.sign(HS256, { ...f.claims(), sub: 'no-such-account' }), INVALID],
  ['sub __proto__', (f) => f.sign(HS256, { ...f.claims(), sub: '__proto__' }), INVALID],
  ['sub constructor', (f) => f.sign(HS256, { ...f.claims(), sub: 'constructor' }), INVALID],
  ['jti missing', (f) => f.sign(HS256, { ...f.claims(), jti: undefined }), INVALID],
  ['aud another', (f) => f.sign(HS256, { ...f.claims(), aud: 'someone-else' }), INVALID],
  ['aud empty list', (f) => f.sign(HS256, { ...f.claims(), aud: [] }), INVALID],
  ['aud missing', (f) => f.sign(HS256, { ...f.claims(), aud: undefined }), INVALID],
  ['iss another', (f) => f.sign(HS256, { ...f.claims(), iss: 'evil' }), INVALID],
  ['iss missing', (f) => f.sign(HS256, { ...f.claims(), iss: undefined }), INVALID],
  [
    'kid ../../dev/null, signed with an empty key',
    (f) => f.sign({ ...HS256, kid: '../../../../dev/null' }, f.claims(), ''),
    INVALID,
  ],
  [
    "kid SQL injection, signed with '1'",
    (f) => f.sign({ ...HS256, kid: "x' UNION SELECT '1" }, f.claims(), '1'),
    INVALID,
  ],
  [
    'kid a command, jku and x5u to elsewhere',
    (f) =>
      f.sign(
        { ...HS256, kid: '|id', jku: 'http://127.0.0.1:1/k', x5u: 'http://127.0.0.1:1/c' },
        f.claims(),
        'k',
      ),
    INVALID,
  ],
  [
    'jwk header carrying its own key',
    (f) => f.sign({ ...HS256, jwk: { kty: 'oct', k: b64('attacker') } }, f.claims(), 'attacker'),
    INVALID,
  ],
  [
    'crit naming an unknown extension',
    (f) => f.sign({ ...HS256, crit: ['x-portcullis'], 'x-portcullis': true }, f.claims()),
    INVALID,
  ],
  ['crit empty', (f) => f.sign({ ...HS256, crit: [] }, f.claims()), INVALID],
  [
    'b64 false (unencoded payload)',
    (f) => f.sign({ ...HS256, b64: false, crit: ['b64'] }, f.claims()),
    INVALID,
  ],
  [
    'nested: cty JWT, a token as the payload',
    (f) => f.signRaw(json({ ...HS256, cty: 'JWT' }), b64(f.sign(HS256, f.claims()))),
    INVALID,
  ],
  [
    'duplicate alg: none last, no signature',
    (f) => `${b64('{"alg":"HS256","alg":"none"}')}.${json(f.claims())}.`,
    INVALID,
  ],
  // signed with our key, so the claims are parsed: a first-wins parser behind us would read `admin`
  [
    'duplicate sub, signed with our key',
    (f) => f.signRaw(json(HS256), b64(JSON.stringify(f.claims()).replace('{', '{"sub":"admin",'))),
    INVALID,
  ],
  [
    'duplicate alg in the header, signed with our key',
    (f) => f.signRaw(b64('{"alg":"none","alg":"HS256"}'), json(f.claims())),
    INVALID,
  ],
  ['a JWT header as the whole token', () => json(HS256), INVALID],
];

/** Whole `Authorization` values, and requests with the token elsewhere. */
const HEADER_CASES: Array<[name: string, header: (token: string) => string, message: string]> = [
  ['scheme Token', (t) => `Token ${t}`, BAD_HEADER],
  ['scheme JWT', (t) => `JWT ${t}`, BAD_HEADER],
  ['scheme Bearer without a space', (t) => `Bearer${t}`, BAD_HEADER],
  ['a tab after Bearer', (t) => `Bearer\t${t}`, BAD_HEADER],
  ['two tokens, comma-separated', (t) => `Bearer ${t}, Bearer ${t}`, BAD_HEADER],
  ['the token and more words', (t) => `Bearer ${t} extra`, BAD_HEADER],
  ['the token alone', (t) => t, BAD_HEADER],
  ['Bearer and nothing', () => 'Bearer', BAD_HEADER],
  ['the token in quotes', (t) => `Bearer "${t}"`, BAD_HEADER],
];

describe('gateway: JWT attack table (issue 15)', () => {
  let g: GatewayHarness;
  let forms: Forms;
  let aliceId = '';

  beforeAll(async () => {
    g = await startGatewayHarness({ GATEWAY_AUTH: 'jwt', GATEWAY_JWT_SECRET: SECRET });
    const alice = await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
    aliceId = alice.id;
    const signRaw = (header: string, payload: string, key = SECRET): string =>
      `${header}.${payload}.${hmac('sha256', key, `${header}.${payload}`)}`;
    forms = {
      claims: () => ({
        username: 'alice',
        sub: alice.id,
        jti: randomUUID(),
        iat: now(),
        exp: now() + 600,
        iss: ISSUER,
        aud: AUDIENCE,
      }),
      signRaw,
      sign: (header, payload, key) => signRaw(json(header), json(payload), key),
    };
  });
  afterAll(() => g.close());

  const expectRefused = (r: { status: number; body: unknown; headers: Headers }, message: string): void => {
    expect([r.status, r.body]).toEqual([401, { error: message, code: 'UNAUTHENTICATED' }]);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    expect(findInternalDetail(JSON.stringify(r.body))).toBeUndefined();
  };

  it.each([
    ['our own form', (f: Forms) => f.sign(HS256, f.claims())],
    [
      'expired within the 30 s clock tolerance',
      (f: Forms) => f.sign(HS256, { ...f.claims(), exp: now() - 10 }),
    ],
    [
      'not before 10 s from now, within the tolerance',
      (f: Forms) => f.sign(HS256, { ...f.claims(), nbf: now() + 10 }),
    ],
    ['aud a list holding ours', (f: Forms) => f.sign(HS256, { ...f.claims(), aud: ['other', AUDIENCE] })],
    // size alone is no reason to refuse a token we signed: the parser reads it whole
    ['a huge header (8 KiB)', (f: Forms) => f.sign({ ...HS256, x: 'x'.repeat(8192) }, f.claims())],
    [
      'a very long token (12 KiB of payload)',
      (f: Forms) => f.sign(HS256, { ...f.claims(), pad: 'p'.repeat(9000) }),
    ],
  ])('control: %s passes', async (_name, make) => {
    const r = await g.request('GET', '/api/test', { headers: { authorization: `Bearer ${make(forms)}` } });
    expect([r.status, r.body]).toMatchObject([200, { user: { id: aliceId, username: 'alice' } }]);
  });

  it.each(TOKEN_CASES)('%s: 401', async (_name, make, message) => {
    const r = await g.request('GET', '/api/test', { headers: { authorization: `Bearer ${make(forms)}` } });
    expectRefused(r, message);
  });

  it.each(HEADER_CASES)('Authorization %s: 401', async (_name, header, message) => {
    const r = await g.request('GET', '/api/test', {
      headers: { authorization: header(forms.sign(HS256, forms.claims())) },
    });
    expectRefused(r, message);
  });

  it.each(['access_token', 'jwt', 'token', 'authorization'])(
    'a valid token in the query (?%s=) is no credential: 401',
    async (name) => {
      const token = forms.sign(HS256, forms.claims());
      expectRefused(await g.request('GET', `/api/test?${name}=${token}`), MISSING);
    },
  );

  // the first and third answered 200 before issue 15's table: node keeps the first Authorization header
  it.each([
    ['a valid token, then garbage', (t: string) => [`Bearer ${t}`, 'Bearer garbage']],
    ['garbage, then a valid token', (t: string) => ['Bearer garbage', `Bearer ${t}`]],
    ['a valid token twice', (t: string) => [`Bearer ${t}`, `Bearer ${t}`]],
  ])('two Authorization headers (%s): 401', async (_name, values) => {
    const token = forms.sign(HS256, forms.claims());
    const client = createHttpClient(g.app.port);
    const headers = [
      'Host',
      `127.0.0.1:${g.app.port}`,
      ...values(token).flatMap((v) => ['Authorization', v]),
    ];
    const r = await client.send({ method: 'GET', path: '/api/test', headers }).finally(() => client.close());
    expect([r.status, JSON.parse(r.body)]).toEqual([401, { error: BAD_HEADER, code: 'UNAUTHENTICATED' }]);
  });
});
