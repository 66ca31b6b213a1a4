import { describe, expect, it } from 'vitest';
import { createHttpApp } from './http-app.js';
import { createLogger } from './log.js';

describe('createHttpApp', () => {
  it('issue 15: answers a URL fastify cannot decode through the service error mapping', async () => {
    const log = createLogger({ level: 'fatal', format: 'json' });
    const app = createHttpApp(log, (err) => ({
      statusCode: 400,
      body: { error: (err as Error).message, code: 'MAPPED' },
    }));
    app.get('/x/*', () => 'ok');
    for (const url of ['/x/%FF', '/x/%zz']) {
      const r = await app.inject({ url });
      expect([r.statusCode, r.json()]).toEqual([
        400,
        { error: `'${url}' is not a valid url component`, code: 'MAPPED' },
      ]);
    }
    await app.close();
  });
});
