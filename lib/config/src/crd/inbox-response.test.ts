import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseInboxEndpoint } from './inbox-endpoint.js';
import { parseEndpointResponse } from './inbox-response.js';

const VALUE_RULE =
  'at most 1024 characters of tab, visible ASCII, space or Latin-1 (up to U+00FF): no control character, nothing beyond Latin-1';

describe('parseEndpointResponse', () => {
  it('fills defaults: 200, no headers, an empty body, no delay', () => {
    expect(parseEndpointResponse('response', {})).toEqual({ status: 200, headers: [], body: '', delayMs: 0 });
  });

  it('keeps headers in order, and {{body.…}} placeholders', () => {
    const r = {
      status: 201,
      headers: [
        { name: 'Content-Type', value: 'text/plain' },
        { name: 'X-Hook', value: 'a\tb' },
      ],
      body: '{{body.challenge}} {{ body.a.0.b }}',
      delayMs: 10_000,
    };
    expect(parseEndpointResponse('response', r)).toEqual(r);
  });

  it('names every problem: status, refused and bad headers, body, placeholders, delay', () => {
    expect(() =>
      parseEndpointResponse('response', {
        status: 101,
        headers: [
          { name: 'Transfer-Encoding', value: 'chunked' },
          { name: 'content-length', value: '1' },
          { name: 'Set-Cookie', value: 'a=b' },
          { name: 'bad name', value: 'x' },
          { name: 'X-Ok', value: 'line\r\nX-Injected: 1' },
        ],
        body: '{{request.url}}',
        delayMs: 10_001,
        colour: 'red',
      }),
    ).toThrow(
      new ConfigError([
        "response: colour: unknown key 'colour'",
        'response: status: expected 200 to 599 (1xx are interim answers that a final one must follow, not answers)',
        'response: body: unknown placeholder "{{request.url}}": expected {{body.<field>[.<field>…]}}',
        'response: delayMs: at most 10000 (10 s)',
        "response: headers[0].name: 'Transfer-Encoding' cannot be set: the server owns the connection and the framing",
        "response: headers[1].name: 'content-length' cannot be set: the server owns the connection and the framing",
        "response: headers[2].name: 'Set-Cookie' cannot be set: it acts on the whole origin, which receive URLs share with the inspector",
        'response: headers[3].name: expected a header name of 1 to 64 token characters',
        `response: headers[4].value: ${VALUE_RULE}`,
      ]),
    );
  });

  // issue 34: node:http throws ERR_INVALID_CHAR on these when answering, so every capture answered 500
  it('refuses header values node:http cannot send, naming each; keeps Latin-1', () => {
    const values = ['€', '李雷', 'a\u0000b', 'a\rb', 'a\nb', 'a\u007fb', 'a\u0100', '😀'];
    expect(() =>
      parseEndpointResponse('response', { headers: values.map((value) => ({ name: 'X-A', value })) }),
    ).toThrow(new ConfigError(values.map((_, i) => `response: headers[${i}].value: ${VALUE_RULE}`)));
    const latin1 = { name: 'X-A', value: 'café ÿ\t~ !' };
    expect(parseEndpointResponse('response', { headers: [latin1] }).headers).toEqual([latin1]);
  });

  // issue 34: a receive URL shares the inspector's origin
  it('refuses headers that act on the whole origin, any case, and keeps Content-Type', () => {
    const names = [
      'Clear-Site-Data',
      'Location',
      'refresh',
      'Content-Security-Policy-Report-Only',
      'Link',
      'Service-Worker-Allowed',
      'Access-Control-Allow-Origin',
      'access-control-allow-credentials',
      'Strict-Transport-Security',
      'Alt-Svc',
      'Origin-Agent-Cluster',
      'Cross-Origin-Opener-Policy',
      'Cross-Origin-Resource-Policy',
      'Permissions-Policy',
      'NEL',
      'Report-To',
      'WWW-Authenticate',
    ];
    expect(() =>
      parseEndpointResponse('response', { headers: names.map((name) => ({ name, value: 'x' })) }),
    ).toThrow(
      new ConfigError(
        names.map(
          (name, i) =>
            `response: headers[${i}].name: '${name}' cannot be set: it acts on the whole origin, which receive URLs share with the inspector`,
        ),
      ),
    );
    const type = { name: 'Content-Type', value: 'text/html' };
    expect(parseEndpointResponse('response', { headers: [type] }).headers).toEqual([type]);
  });

  it('refuses a body over 64 KiB, a body with 204, and more than 20 headers', () => {
    const header = { name: 'X-A', value: '1' };
    expect(() =>
      parseEndpointResponse('response', { body: 'é'.repeat(32 * 1024 + 1), headers: Array(21).fill(header) }),
    ).toThrow(
      new ConfigError([
        'response: headers: at most 20 headers',
        'response: body: at most 65536 bytes (64 KiB) of UTF-8',
      ]),
    );
    expect(() => parseEndpointResponse('response', { status: 204, body: 'x' })).toThrow(
      new ConfigError(['response: body: must be empty with status 204, which carries no body']),
    );
  });

  it("is an InboxEndpoint's spec.response", () => {
    const spec = parseInboxEndpoint('ns/slack', {
      endpointId: 'Qm9vdHN0cmFwcGVkLWlkLTEyMw',
      response: { status: 200, body: '{{body.challenge}}' },
    });
    expect(spec.response).toEqual({ status: 200, headers: [], body: '{{body.challenge}}', delayMs: 0 });
    expect(() =>
      parseInboxEndpoint('ns/slack', { endpointId: 'Qm9vdHN0cmFwcGVkLWlkLTEyMw', response: { status: 600 } }),
    ).toThrow(
      new ConfigError([
        'ns/slack: response.status: expected 200 to 599 (1xx are interim answers that a final one must follow, not answers)',
      ]),
    );
  });
});
