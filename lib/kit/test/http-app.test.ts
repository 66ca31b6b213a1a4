import { connect } from 'node:net';
import { createCollectingLog, waitUntil } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpApp, listenHttp, readBody, type ErrorMapper, type RunningServer } from '../src/index.js';

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
    server = await listenHttp(app, { host: '127.0.0.1', port: 0 });
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
