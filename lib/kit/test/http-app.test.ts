import { connect } from 'node:net';
import { createCollectingLog, waitUntil } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttpApp,
  listenHttp,
  readBody,
  type DirectAnswer,
  type ErrorMapper,
  type RunningServer,
} from '../src/index.js';

// what the operator's health and metrics ports map every error to
const internalError: ErrorMapper = () => ({
  statusCode: 500,
  body: { error: 'internal error', code: 'INTERNAL' },
});

describe('kit http app over a real socket', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  let reading = false;
  const start = async (): Promise<{ port: number; lines: Array<Record<string, unknown>> }> => {
    const { log, lines } = createCollectingLog();
    const app = createHttpApp(log, internalError);
    app.get('/healthz', () => ({ status: 'ok' }));
    // the body stays an unread stream, as the inbox's capture routes and the gateway's dispatch read it
    app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    app.post('/upload', async (request) => {
      reading = true;
      return { bytes: (await readBody(request.raw, 1024, () => new Error('too large'))).length };
    });
    server = await listenHttp(app, { host: '127.0.0.1', port: 0, setting: 'PORT' });
    return { port: server.port, lines };
  };

  /** Writes `head` as is and resolves with the status line and body of the answer. */
  const sendRaw = (port: number, head: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(head));
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
    });

  it.each([
    ['PATCH /healthz', 'PATCH /healthz HTTP/1.1\r\n', 404, 'NOT_FOUND'],
    [
      'PATCH /healthz with an empty JSON body',
      'PATCH /healthz HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 0\r\n',
      400,
      'BAD_REQUEST',
    ],
    ['DELETE /', 'DELETE / HTTP/1.1\r\n', 404, 'NOT_FOUND'],
    ['BREW /, a method HTTP does not have', 'BREW / HTTP/1.1\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ])('answers %s with a 4xx and the error body, never 500', async (_name, head, status, code) => {
    const { port, lines } = await start();
    const answer = await sendRaw(port, `${head}Host: x\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: expect.any(String) as unknown,
      code,
    });
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  // issue 15, found by the gateway's fuzz suite: the refusal's JSON after a HEAD read as a broken next answer
  it('answers a refused HEAD with the status and length but no body', async () => {
    const { port } = await start();
    const answer = await sendRaw(
      port,
      `HEAD /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 431 /);
    expect(answer).toMatch(/\r\nContent-Length: \d+\r\n/);
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
    const get = await sendRaw(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(get).toMatch(/\{"error":"request headers too large","code":"HEADERS_TOO_LARGE"\}$/);
  });

  it('logs a client that goes away mid-body at info, without an error or a stack', async () => {
    const { port, lines } = await start();
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part of it'),
    );
    socket.on('error', () => undefined);
    await waitUntil(() => reading);
    socket.destroy();
    await waitUntil(() => lines.some((l) => l['@message'] === 'client went away'));
    expect(lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(lines.find((l) => l['@message'] === 'client went away')).toEqual({
      level: 'info',
      '@timestamp': expect.any(String) as unknown,
      '@message': 'client went away',
      reqId: expect.any(String) as unknown,
      method: 'POST',
      url: '/upload',
    });
  });
});

describe('kit http app: a direct route', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  const handle = (body: string): Promise<DirectAnswer> => {
    if (body === 'fail') return Promise.reject(Object.assign(new Error('refused'), { statusCode: 409 }));
    return Promise.resolve({ statusCode: 201, contentType: 'text/plain', body: `got ${body.slice(0, 8)}` });
  };
  /** The same handler as a direct route and as a fastify route, each in its own app. */
  const startBoth = async (): Promise<[number, number]> => {
    const direct = createHttpApp(createCollectingLog().log, internalError, {
      directRoute: {
        method: 'POST',
        url: '/echo',
        contentTypes: ['text/plain'],
        parse: (text) => text,
        handle: (body) => handle(body as string),
      },
    });
    const routed = createHttpApp(createCollectingLog().log, internalError);
    routed.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    for (const app of [direct, routed]) {
      app.post('/echo', async (request, reply) => {
        const answer = await handle(typeof request.body === 'string' ? request.body : '');
        return reply.code(answer.statusCode).type(answer.contentType).send(answer.body);
      });
    }
    for (const app of [direct, routed])
      servers.push(await listenHttp(app, { host: '127.0.0.1', port: 0, setting: 'PORT' }));
    return [servers[0]?.port ?? 0, servers[1]?.port ?? 0];
  };
  const answer = async (port: number, body: string | Buffer | undefined) => {
    const res = await fetch(`http://127.0.0.1:${port}/echo`, {
      method: 'POST',
      ...(body !== undefined && { headers: { 'content-type': 'text/plain' }, body }),
    });
    return [res.status, res.headers.get('content-type'), await res.text()];
  };

  it.each([
    ['a body', 'hello'],
    ['no body', undefined],
    ['a body over 1 MiB', 'x'.repeat(1024 * 1024 + 1)],
    // decoded as UTF-8, each invalid byte a U+FFFD
    ['a body that is not UTF-8', Buffer.from([0xff, 0xfe, 0x41])],
    ['a handler that throws', 'fail'],
  ])('answers %s as fastify answers the same route', async (_name, body) => {
    const [direct, routed] = await startBoth();
    expect(await answer(direct, body)).toEqual(await answer(routed, body));
  });
});
