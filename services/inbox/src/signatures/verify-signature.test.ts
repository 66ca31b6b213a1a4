import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SignaturePreset } from '@portcullis/config';
import { verifySignature } from './verify-signature.js';

const NOW_S = 1_700_000_000;
const body = Buffer.from('{"action":"opened","n":1}\n');
const hmac = (algorithm: string, key: string | Buffer, data: string | Buffer): Buffer =>
  createHmac(algorithm, key).update(data).digest();
const check = (
  preset: SignaturePreset,
  secret: string,
  headers: string[],
  o: { body?: Buffer; nowS?: number } = {},
) =>
  verifySignature(preset, secret, {
    rawHeaders: headers,
    body: o.body ?? body,
    nowMs: (o.nowS ?? NOW_S) * 1000,
  });
const failed = (reason: string): unknown => expect.objectContaining({ status: 'failed', reason });

describe('GitHub X-Hub-Signature-256', () => {
  const github = { provider: 'github' } as const;

  it('verifies the example of GitHub’s docs', () => {
    // docs.github.com, "Validating webhook deliveries": secret, payload and signature as published
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(
      check(github, "It's a Secret to Everybody", ['X-Hub-Signature-256', header], {
        body: Buffer.from('Hello, World!'),
      }),
    ).toEqual({ status: 'verified', provider: 'github' });
  });

  it('verifies sha256=<hex HMAC of the body>, in any header case, and refuses the rest', () => {
    const sig = `sha256=${hmac('sha256', 'gh-secret', body).toString('hex')}`;
    expect(check(github, 'gh-secret', ['x-hub-signature-256', sig]).status).toBe('verified');
    expect(check(github, 'other', ['X-Hub-Signature-256', sig])).toEqual({
      status: 'failed',
      provider: 'github',
      reason: 'mismatch',
      message: 'the signature does not match the body',
    });
    expect(
      check(github, 'gh-secret', ['X-Hub-Signature-256', sig], { body: Buffer.from('changed') }),
    ).toEqual(failed('mismatch'));
    expect(check(github, 'gh-secret', [])).toEqual(failed('missing_header'));
    expect(check(github, 'gh-secret', ['X-Hub-Signature', 'sha1=abc'])).toMatchObject({
      message: 'no X-Hub-Signature-256 header',
    });
    expect(check(github, 'gh-secret', ['X-Hub-Signature-256', sig.slice(7)])).toMatchObject({
      reason: 'bad_format',
      message: 'X-Hub-Signature-256: expected sha256=<64 hex digits>',
    });
    expect(check(github, 'gh-secret', ['X-Hub-Signature-256', `sha512=${sig.slice(7)}`])).toEqual(
      failed('bad_format'),
    );
    expect(check(github, 'gh-secret', ['X-Hub-Signature-256', `${sig.slice(0, -1)}z`])).toEqual(
      failed('bad_format'),
    );
  });
});

describe('Stripe-Signature', () => {
  const stripe = { provider: 'stripe', toleranceSeconds: 300 } as const;
  const secret = 'whsec_test_secret';
  // stripe.com/docs/webhooks/signatures: HMAC-SHA256 of "<t>.<raw body>", hex, in v1
  const sign = (t: number, key = secret): string =>
    hmac('sha256', key, Buffer.concat([Buffer.from(`${t}.`), body])).toString('hex');

  it('verifies t=…,v1=… with any of several v1 (a secret being rolled)', () => {
    expect(check(stripe, secret, ['Stripe-Signature', `t=${NOW_S},v1=${sign(NOW_S)}`]).status).toBe(
      'verified',
    );
    const rolled = `t=${NOW_S},v1=${sign(NOW_S, 'old')},v1=${sign(NOW_S)},v0=${'0'.repeat(64)}`;
    expect(check(stripe, secret, ['Stripe-Signature', rolled]).status).toBe('verified');
  });

  it('reads the items in any order and spacing, skipping those without =', () => {
    const sig = sign(NOW_S);
    expect(check(stripe, secret, ['Stripe-Signature', `v1=${sig},t=${NOW_S}`]).status).toBe('verified');
    expect(check(stripe, secret, ['Stripe-Signature', `t = ${NOW_S} , v1 = ${sig}`]).status).toBe('verified');
    expect(check(stripe, secret, ['Stripe-Signature', `ts,t=${NOW_S},v1=${sig}`]).status).toBe('verified');
  });

  it('refuses a mismatch, a bad format, a missing header', () => {
    expect(check(stripe, secret, ['Stripe-Signature', `t=${NOW_S},v1=${sign(NOW_S, 'other')}`])).toEqual(
      failed('mismatch'),
    );
    expect(check(stripe, secret, ['Stripe-Signature', `t=${NOW_S + 1},v1=${sign(NOW_S)}`])).toEqual(
      failed('mismatch'),
    );
    expect(check(stripe, secret, ['Stripe-Signature', `v1=${sign(NOW_S)}`])).toMatchObject({
      reason: 'bad_format',
      message: 'Stripe-Signature: expected t=<timestamp>,v1=<64 hex digits>',
    });
    expect(check(stripe, secret, ['Stripe-Signature', `t=${NOW_S},v0=${sign(NOW_S)}`])).toEqual(
      failed('bad_format'),
    );
    expect(check(stripe, secret, ['Stripe-Signature', 'garbage'])).toEqual(failed('bad_format'));
    expect(check(stripe, secret, [])).toEqual(failed('missing_header'));
  });

  it('refuses a signature that does not match as such, whatever its timestamp', () => {
    const old = NOW_S - 301;
    expect(check(stripe, secret, ['Stripe-Signature', `t=${old},v1=${sign(old, 'other')}`])).toEqual(
      failed('mismatch'),
    );
  });

  it('refuses a timestamp outside the tolerance, either way', () => {
    const old = NOW_S - 301;
    expect(check(stripe, secret, ['Stripe-Signature', `t=${old},v1=${sign(old)}`])).toEqual({
      status: 'failed',
      provider: 'stripe',
      reason: 'timestamp_outside_tolerance',
      message: "signed 301 s away from the inbox's clock, tolerance 300 s",
    });
    const edge = NOW_S - 300;
    expect(check(stripe, secret, ['Stripe-Signature', `t=${edge},v1=${sign(edge)}`]).status).toBe('verified');
    const future = NOW_S + 400;
    expect(check(stripe, secret, ['Stripe-Signature', `t=${future},v1=${sign(future)}`])).toEqual(
      failed('timestamp_outside_tolerance'),
    );
    const wide = { provider: 'stripe', toleranceSeconds: 600 } as const;
    expect(check(wide, secret, ['Stripe-Signature', `t=${future},v1=${sign(future)}`]).status).toBe(
      'verified',
    );
  });
});

describe('Slack X-Slack-Signature v0', () => {
  const slack = { provider: 'slack', toleranceSeconds: 300 } as const;

  it('verifies the example of Slack’s docs', () => {
    // api.slack.com/authentication/verifying-requests-from-slack: the example request, secret and signature
    const slashCommand = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&' +
        'channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&' +
        'response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&' +
        'trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const headers = [
      'X-Slack-Request-Timestamp',
      '1531420618',
      'X-Slack-Signature',
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    ];
    expect(
      check(slack, '8f742231b10e8888abcd99yyyzzz85a5', headers, { body: slashCommand, nowS: 1531420618 }),
    ).toEqual({
      status: 'verified',
      provider: 'slack',
    });
  });

  it('verifies v0=<hex HMAC of v0:<timestamp>:<body>> and refuses the rest', () => {
    const sign = (t: number) =>
      `v0=${hmac('sha256', 'slack-secret', Buffer.concat([Buffer.from(`v0:${t}:`), body])).toString('hex')}`;
    const headers = (t: number, sig = sign(t)) => [
      'X-Slack-Request-Timestamp',
      String(t),
      'X-Slack-Signature',
      sig,
    ];
    expect(check(slack, 'slack-secret', headers(NOW_S)).status).toBe('verified');
    expect(check(slack, 'other', headers(NOW_S))).toEqual(failed('mismatch'));
    expect(check(slack, 'slack-secret', headers(NOW_S - 301))).toEqual(failed('timestamp_outside_tolerance'));
    expect(check(slack, 'slack-secret', headers(NOW_S, sign(NOW_S).slice(3)))).toMatchObject({
      reason: 'bad_format',
      message: 'X-Slack-Signature: expected v0=<64 hex digits>',
    });
    expect(check(slack, 'slack-secret', headers(NOW_S, `v1=${sign(NOW_S).slice(3)}`))).toEqual(
      failed('bad_format'),
    );
    expect(check(slack, 'slack-secret', ['X-Slack-Request-Timestamp', String(NOW_S)])).toMatchObject({
      reason: 'missing_header',
      message: 'no X-Slack-Signature header',
    });
    expect(check(slack, 'slack-secret', ['X-Slack-Signature', sign(NOW_S)])).toMatchObject({
      message: 'no X-Slack-Request-Timestamp header',
    });
    expect(
      check(slack, 'slack-secret', ['X-Slack-Request-Timestamp', 'soon', 'X-Slack-Signature', sign(NOW_S)]),
    ).toMatchObject({
      reason: 'bad_format',
      message: 'X-Slack-Request-Timestamp: expected a Unix time in seconds',
    });
  });
});

describe('Shopify X-Shopify-Hmac-Sha256', () => {
  const shopify = { provider: 'shopify' } as const;

  it('verifies the base64 HMAC-SHA256 of the body and refuses the rest', () => {
    // shopify.dev, "Verify webhooks": base64 HMAC-SHA256 of the raw body with the app's client secret
    const sig = hmac('sha256', 'shpss_secret', body).toString('base64');
    expect(check(shopify, 'shpss_secret', ['X-Shopify-Hmac-Sha256', sig]).status).toBe('verified');
    expect(check(shopify, 'other', ['X-Shopify-Hmac-Sha256', sig])).toEqual(failed('mismatch'));
    expect(check(shopify, 'shpss_secret', ['X-Shopify-Hmac-Sha256', 'not base64!'])).toMatchObject({
      reason: 'bad_format',
      message: 'X-Shopify-Hmac-Sha256: expected base64',
    });
    expect(check(shopify, 'shpss_secret', ['X-Shopify-Hmac-Sha256', ''])).toEqual(failed('bad_format'));
    expect(check(shopify, 'shpss_secret', [])).toEqual(failed('missing_header'));
  });
});

describe('Standard Webhooks / Svix', () => {
  const sw = { provider: 'standard-webhooks', toleranceSeconds: 300 } as const;

  it('verifies the test vector of the Standard Webhooks reference libraries (svix’s)', () => {
    const headers = [
      'webhook-id',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp',
      '1614265330',
      'webhook-signature',
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    ];
    const payload = Buffer.from('{"test": 2432232314}');
    expect(
      check(sw, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, { body: payload, nowS: 1614265330 }),
    ).toEqual({
      status: 'verified',
      provider: 'standard-webhooks',
    });
  });

  it('verifies space-separated v1 entries of <id>.<timestamp>.<body>, also under svix-* names', () => {
    const key = Buffer.from('a 24-byte signing key!!!');
    const secret = `whsec_${key.toString('base64')}`;
    const sign = (id: string, t: number, k = key) =>
      `v1,${hmac('sha256', k, Buffer.concat([Buffer.from(`${id}.${t}.`), body])).toString('base64')}`;
    const headers = (p: string, t: number, sig: string) => [
      `${p}-id`,
      'msg_1',
      `${p}-timestamp`,
      String(t),
      `${p}-signature`,
      sig,
    ];
    expect(check(sw, secret, headers('webhook', NOW_S, sign('msg_1', NOW_S))).status).toBe('verified');
    const two = `v1,${Buffer.alloc(32).toString('base64')} v2,xyz ${sign('msg_1', NOW_S)}`;
    expect(check(sw, secret, headers('webhook', NOW_S, two)).status).toBe('verified');
    expect(check(sw, secret, headers('svix', NOW_S, sign('msg_1', NOW_S))).status).toBe('verified');
    expect(check(sw, secret, headers('webhook', NOW_S, sign('msg_2', NOW_S)))).toEqual(failed('mismatch'));
    expect(check(sw, secret, headers('webhook', NOW_S, sign('msg_1', NOW_S, Buffer.from('k'))))).toEqual(
      failed('mismatch'),
    );
    expect(check(sw, secret, headers('webhook', NOW_S - 301, sign('msg_1', NOW_S - 301)))).toEqual(
      failed('timestamp_outside_tolerance'),
    );
    expect(check(sw, secret, headers('webhook', NOW_S, 'v2,abc'))).toMatchObject({
      reason: 'bad_format',
      message: 'webhook-signature: expected v1,<base64> entries',
    });
    // the right digest, but under another version
    expect(check(sw, secret, headers('webhook', NOW_S, `v2,${sign('msg_1', NOW_S).slice(3)}`))).toEqual(
      failed('bad_format'),
    );
    expect(check(sw, secret, headers('webhook', NOW_S, 'v1,'))).toEqual(failed('bad_format'));
    const soon = headers('webhook', NOW_S, sign('msg_1', NOW_S)).map((h) =>
      h === String(NOW_S) ? 'soon' : h,
    );
    expect(check(sw, secret, soon)).toMatchObject({
      reason: 'bad_format',
      message: 'webhook-timestamp: expected a Unix time in seconds',
    });
    expect(
      check(sw, secret, ['webhook-signature', sign('msg_1', NOW_S), 'webhook-id', 'msg_1']),
    ).toMatchObject({
      reason: 'missing_header',
      message: 'no webhook-timestamp header',
    });
    // webhook-* names win over svix-* ones
    const both = [...headers('webhook', NOW_S, sign('msg_1', NOW_S)), ...headers('svix', NOW_S, 'v1,AAAA')];
    expect(check(sw, secret, both).status).toBe('verified');
    expect(check(sw, secret, ['webhook-signature', sign('msg_1', NOW_S)])).toMatchObject({
      message: 'no webhook-id header',
    });
    expect(check(sw, secret, [])).toMatchObject({ message: 'no webhook-signature header' });
  });
});

describe('generic HMAC', () => {
  it('verifies each algorithm and encoding, with a prefix', () => {
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      for (const encoding of ['hex', 'base64'] as const) {
        const preset = {
          provider: 'hmac',
          header: 'X-Signature',
          algorithm,
          encoding,
          prefix: `${algorithm}=`,
        } as const;
        const sig = `${algorithm}=${hmac(algorithm, 'k', body).toString(encoding)}`;
        expect(check(preset, 'k', ['X-Signature', sig]).status).toBe('verified');
        expect(check(preset, 'other', ['X-Signature', sig])).toEqual(failed('mismatch'));
      }
    }
  });

  it('refuses a digest of another length, a missing prefix, a missing header', () => {
    const preset = {
      provider: 'hmac',
      header: 'X-Sig',
      algorithm: 'sha256',
      encoding: 'hex',
      prefix: 'sha256=',
    } as const;
    const sha1 = `sha256=${hmac('sha1', 'k', body).toString('hex')}`;
    expect(check(preset, 'k', ['X-Sig', sha1])).toEqual(failed('mismatch'));
    expect(check(preset, 'k', ['X-Sig', hmac('sha256', 'k', body).toString('hex')])).toEqual(
      failed('bad_format'),
    );
    expect(check(preset, 'k', ['X-Sig', 'sha256='])).toMatchObject({
      reason: 'bad_format',
      message: 'X-Sig: expected sha256=<hex digest>',
    });
    const hex = hmac('sha256', 'k', body).toString('hex');
    for (const digest of ['z'.repeat(64), `x${hex}`, `${hex}zz`, `${hex}a`]) {
      expect(check(preset, 'k', ['X-Sig', `sha256=${digest}`])).toEqual(failed('bad_format'));
    }
    expect(check({ ...preset, encoding: 'base64' }, 'k', ['X-Sig', 'sha256='])).toEqual(failed('bad_format'));
    expect(check(preset, 'k', [])).toEqual({
      status: 'failed',
      provider: 'hmac',
      reason: 'missing_header',
      message: 'no X-Sig header',
    });
  });
});
