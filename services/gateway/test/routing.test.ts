import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortcullisError } from '@portcullis/kit';
import { ForbiddenError } from '../src/errors.js';
import { Example } from '../src/handlers/example.js';
import type { RoutesDefinition } from '../src/router/routes-module.js';
import { routes } from '../src/routes.js';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

/** A PortcullisError no registry of the gateway lists: answered as any unknown error. */
class UnregisteredError extends PortcullisError {
  static override readonly code = 'UNREGISTERED';
  static override readonly status = 418;
}

/** Extra handlers only these tests route to: failures and empty answers. */
class Probe {
  static nothing(): unknown {
    return undefined;
  }

  static forbidden(): unknown {
    throw new ForbiddenError('not yours');
  }

  static unregistered(): unknown {
    throw new UnregisteredError('secret internals of a class the gateway does not answer');
  }

  static crash(): unknown {
    throw new Error('secret internals at /srv/app.ts:42');
  }
}

const testRoutes: RoutesDefinition = [
  ...routes,
  ['GET', 'probe/nothing', Probe, 'nothing', { auth: false }],
  ['GET', 'probe/forbidden', Probe, 'forbidden', { auth: false }],
  ['GET', 'probe/unregistered', Probe, 'unregistered', { auth: false }],
  ['GET', 'probe/crash', Probe, 'crash', { auth: false }],
  [
    'POST',
    'needs/{id:\\d+}',
    Example,
    'echo',
    { auth: false, requiredParams: ['id|int', 'message|text', 'email|email'] },
  ],
];

describe('gateway routing (auth none)', () => {
  let g: GatewayHarness;
  beforeAll(async () => {
    g = await startGatewayHarness({}, { routes: testRoutes, handlers: { Example, Probe } });
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
  });
  afterAll(() => g.close());

  it('answers the base path itself, with or without a trailing slash, for any method', async () => {
    for (const [method, path] of [
      ['GET', '/api'],
      ['POST', '/api/'],
      ['DELETE', '/api'],
    ] as const) {
      const r = await g.request(method, path);
      expect([r.status, r.body]).toEqual([200, { message: 'no endpoint defined' }]);
    }
  });

  it('matches the base path as whole segments only', async () => {
    const r = await g.request('GET', '/apiary/users');
    expect(r.status).toBe(404);
  });

  it('lists users with and without a trailing slash, and HEAD falls back to GET', async () => {
    const a = await g.request('GET', '/api/users');
    const b = await g.request('GET', '/api/users/');
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect((a.body as { users: Array<{ name: string }> }).users.map((u) => u.name)).toEqual(['alice']);
    expect(JSON.stringify(a.body)).not.toMatch(/hash|password|scrypt/);
    const head = await fetch(`${g.url}/api/users`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('serves two groups with the same endpoint and different handlers', async () => {
    expect((await g.request('GET', '/api/v1/hello')).body).toMatchObject({ message: 'test successful' });
    expect((await g.request('GET', '/api/v2/hello')).body).toHaveProperty('users');
  });

  it('turns return values into bodies: string → message, nothing → null', async () => {
    expect((await g.request('GET', '/api/ping')).body).toEqual({ message: 'pong' });
    const r = await fetch(`${g.url}/api/probe/nothing`);
    expect([r.status, await r.text()]).toEqual([200, 'null']);
  });

  it('merges query < body < path parameters and never takes userId from the client', async () => {
    const r = await g.request('POST', '/api/echo/Path-Case?id=q&page=2&userId=evil', {
      body: { id: 'b', note: 'hi', userId: 'evil' },
    });
    expect(r.body).toEqual({ id: 'Path-Case', page: '2', note: 'hi' });
    const form = await g.request('POST', '/api/echo/x', { form: { note: 'from a form' } });
    expect(form.body).toEqual({ id: 'x', note: 'from a form' });
    const multipart = new FormData();
    multipart.append('note', 'from a multipart form');
    multipart.append('file', new Blob(['bytes']), 'a.txt');
    const upload = await fetch(`${g.url}/api/echo/y`, { method: 'POST', body: multipart });
    expect(await upload.json()).toEqual({ id: 'y', note: 'from a multipart form' });
  });

  it('answers 404 for no route and 405 with Allow for a wrong method', async () => {
    const missing = await g.request('GET', '/api/nowhere');
    expect([missing.status, missing.body]).toEqual([404, { error: 'Route not found', code: 'NOT_FOUND' }]);
    const wrong = await g.request('PUT', '/api/users');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(wrong.body).toEqual({ error: 'Method not allowed', code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers a registered error with its status and code and hides other failures behind a 500', async () => {
    expect(await g.request('GET', '/api/probe/forbidden')).toMatchObject({
      status: 403,
      body: { error: 'not yours', code: 'FORBIDDEN' },
    });
    for (const path of ['/api/probe/crash', '/api/probe/unregistered']) {
      const crash = await g.request('GET', path);
      expect(crash).toMatchObject({
        status: 500,
        body: { error: 'Internal Server Error', code: 'INTERNAL' },
      });
      expect(JSON.stringify(crash.body)).not.toContain('secret');
    }
    expect(await g.request('GET', '/api/users/nobody')).toMatchObject({
      status: 404,
      body: { error: 'user not found', code: 'NOT_FOUND' },
    });
  });

  it('checks and sanitizes required parameters, naming every missing one', async () => {
    const missing = await g.request('POST', '/api/needs/7', { body: {} });
    expect(missing.status).toBe(400);
    expect((missing.body as { error: string }).error).toContain(
      "Required parameter: 'message|text' missing!",
    );
    expect((missing.body as { error: string }).error).toContain("Required parameter: 'email|email' missing!");
    const ok = await g.request('POST', '/api/needs/7', {
      body: { message: '<b>hi</b>\nthere', email: 'not an email' },
    });
    expect(ok.body).toEqual({ id: 7, message: 'hi there', email: '' });
  });

  it('answers OPTIONS with the allowed methods, without asking for credentials', async () => {
    const r = await fetch(`${g.url}/api/users`, { method: 'OPTIONS' });
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('counts requests for Prometheus', async () => {
    await g.request('GET', '/api/ping');
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toMatch(
      /^portcullis_gateway_requests_total\{method="GET",status="200",component="gateway"\} [1-9]\d*$/m,
    );
  });

  it('refuses malformed JSON and oversized bodies with JSON errors', async () => {
    const bad = await fetch(`${g.url}/api/echo/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^body is not valid JSON/);
    const big = await fetch(`${g.url}/api/echo/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(big.status).toBe(413);
  });

  it('issue 15: refuses a JSON body nested deeper than GATEWAY_MAX_BODY_DEPTH with 400, takes one at it', async () => {
    const nested = (depth: number): string => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const post = (body: string) =>
      fetch(`${g.url}/api/echo/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const deep = await post(nested(10_000));
    expect([deep.status, await deep.json()]).toEqual([
      400,
      { error: 'body is nested deeper than 64 levels', code: 'BODY_TOO_DEEP' },
    ]);
    const atLimit = await post(nested(64));
    expect(atLimit.status).toBe(200);
  });
});
