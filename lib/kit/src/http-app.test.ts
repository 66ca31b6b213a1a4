import { describe, expect, it } from 'vitest';
import { createHttpApp } from './http-app.js';
import { createLogger } from './log.js';

describe('createHttpApp', () => {
  it('issue 15: answers a URL fastify cannot decode as {error, code}; issue 17: 400 BAD_REQUEST, whatever the service maps', async () => {
    const log = createLogger({ level: 'fatal', format: 'json' });
    const app = createHttpApp(log, () => ({
      statusCode: 500,
      body: { error: 'internal', code: 'INTERNAL' },
    }));
    app.get('/x/*', () => 'ok');
    for (const url of ['/x/%FF', '/x/%zz']) {
      const r = await app.inject({ url });
      expect([r.statusCode, r.json()]).toEqual([
        400,
        { error: `'${url}' is not a valid url component`, code: 'BAD_REQUEST' },
      ]);
    }
    await app.close();
  });

  it('issue 15: refuses a JSON body nested deeper than maxJsonDepth with 400, whatever the service maps', async () => {
    const log = createLogger({ level: 'fatal', format: 'json' });
    // the operator's mapping: everything is 500
    const app = createHttpApp(
      log,
      () => ({ statusCode: 500, body: { error: 'internal', code: 'INTERNAL' } }),
      {
        maxJsonDepth: 3,
      },
    );
    app.post('/x', (request) => ({ got: request.body }));
    const post = (payload: string) =>
      app.inject({ method: 'POST', url: '/x', headers: { 'content-type': 'application/json' }, payload });
    const deep = await post('{"a":[[[1]]]}');
    expect([deep.statusCode, deep.json()]).toEqual([
      400,
      { error: 'body is nested deeper than 3 levels', code: 'BODY_TOO_DEEP' },
    ]);
    expect((await post('{"a":[1]}')).json()).toEqual({ got: { a: [1] } });
    // fastify's own parsing stays behind the depth check: poisoned prototypes are still refused
    expect((await post('{"__proto__":{"x":1}}')).statusCode).toBe(400);
    await app.close();
  });

  it('issue 15: bounds every server in time, by default as the operator ports keep it', async () => {
    const log = createLogger({ level: 'fatal', format: 'json' });
    const mapper = () => ({ statusCode: 500, body: { error: 'internal', code: 'INTERNAL' } });
    const bounds = (app: ReturnType<typeof createHttpApp>) => ({
      requestTimeout: app.server.requestTimeout,
      headersTimeout: app.server.headersTimeout,
      keepAliveTimeout: app.server.keepAliveTimeout,
      timeout: app.server.timeout,
    });
    const byDefault = createHttpApp(log, mapper);
    expect(bounds(byDefault)).toEqual({
      requestTimeout: 30_000,
      headersTimeout: 10_000,
      keepAliveTimeout: 72_000,
      timeout: 72_000,
    });
    const given = createHttpApp(log, mapper, {
      timeouts: { requestMs: 60_000, headersMs: 5_000, idleMs: 9_000 },
    });
    expect(bounds(given)).toEqual({
      requestTimeout: 60_000,
      headersTimeout: 5_000,
      keepAliveTimeout: 9_000,
      timeout: 9_000,
    });
    await Promise.all([byDefault.close(), given.close()]);
  });
});
