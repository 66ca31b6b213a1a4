import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { createCollectingLog, sendRawBytes, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BodyTooLargeError,
  createHttpApp,
  listenHttp,
  readBody,
  type ErrorMapper,
  type RunningServer,
} from '../src/index.js';

// fastify's default bodyLimit, which the direct route keeps
const LIMIT = 1024 * 1024;
const TYPE = 'application/octet-stream';

const internalError: ErrorMapper = () => ({
  statusCode: 500,
  body: { error: 'internal error', code: 'INTERNAL' },
});

/**
 * One app with the three ways a body is read: by fastify's content-type parser, by `readBody` in a route
 * fastify left the stream to (the inbox's capture, the gateway's dispatch), and by a direct route (the
 * ratelimit's `POST /json`); `/read-late` reads only once the request arrived whole or its client went away.
 */
describe('request bodies over a real socket, read by fastify, by readBody and by a direct route', () => {
  let server: RunningServer;
  let lines: Array<Record<string, unknown>>;
  const arrived = new Map<string, IncomingMessage>();

  beforeAll(async () => {
    const collecting = createCollectingLog();
    lines = collecting.lines;
    const app = createHttpApp(collecting.log, internalError, {
      directRoute: {
        method: 'POST',
        url: '/direct',
        contentTypes: [TYPE],
        parse: (text) => text,
        handle: (body) =>
          Promise.resolve({
            statusCode: 200,
            contentType: 'application/json',
            body: JSON.stringify({ bytes: Buffer.byteLength(body as string) }),
          }),
      },
    });
    app.server.on('request', (req: IncomingMessage) => arrived.set(req.url ?? '', req));
    app.addContentTypeParser(TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    app.post('/fastify', (request) => ({ bytes: (request.body as Buffer).length }));
    app.get('/healthz', () => ({ status: 'ok' }));
    await app.register((scope, _opts, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
      const read = (raw: IncomingMessage) => readBody(raw, LIMIT, () => new BodyTooLargeError(LIMIT));
      scope.post('/read', async (request) => ({ bytes: (await read(request.raw)).length }));
      scope.post('/read-late', async (request) => {
        await waitUntil(() => request.raw.complete || request.raw.destroyed);
        return { hex: (await read(request.raw)).toString('hex') };
      });
      // a limit below what Node buffers before it stops reading, so a body over it can arrive whole unread
      scope.post('/read-late-4', async (request) => {
        await waitUntil(() => request.raw.complete);
        return { bytes: (await readBody(request.raw, 4, () => new BodyTooLargeError(4))).length };
      });
      done();
    });
    server = await listenHttp(app, { host: '127.0.0.1', port: 0, setting: 'PORT' });
  });
  afterAll(() => server.close());

  const exchange = (bytes: string | Buffer) => sendRawBytes(server.port, bytes, { halfClose: false });
  // `statuses` finds a status line only after a CRLF, and a JSON answer's body ends without one
  const statusesIn = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
  const head = (path: string, framing: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${TYPE}\r\n${framing}\r\n\r\n`;
  const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n`;
  const then = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const routes = ['/fastify', '/read', '/direct'];

  it.each(routes)('%s: a body within the limit, by length or chunked, keeps the connection', async (path) => {
    const { text } = await exchange(
      `${head(path, 'Content-Length: 5')}hello` +
        `${head(path, 'Transfer-Encoding: chunked')}${chunked('hel')}${chunked('lo!')}0\r\n\r\n${then}`,
    );
    expect(statusesIn(text)).toEqual([200, 200, 200]);
    expect(text).toContain('{"bytes":5}');
    expect(text).toContain('{"bytes":6}');
  });

  it.each(routes)(
    '%s: a declared length over the limit is 413, the connection closed unread',
    async (path) => {
      const { statuses, text } = await exchange(head(path, `Content-Length: ${LIMIT + 1}`));
      expect(statuses).toEqual([413]);
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(text).toContain('"code":"BODY_TOO_LARGE"');
    },
  );

  it.each(routes)('%s: a chunked body passing the limit is 413, the connection closed', async (path) => {
    const { statuses, text } = await exchange(
      `${head(path, 'Transfer-Encoding: chunked')}${chunked('x'.repeat(LIMIT / 2))}` +
        `${(LIMIT / 2 + 1).toString(16)}\r\n${'x'.repeat(LIMIT / 2 + 1)}`,
    );
    expect(statuses).toEqual([413]);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toContain('"code":"BODY_TOO_LARGE"');
  });

  it.each(routes)('%s: a body shorter than its length, the client done sending, is 400', async (path) => {
    const { statuses, text } = await sendRawBytes(server.port, `${head(path, 'Content-Length: 100')}short`);
    expect(statuses).toEqual([400]);
    expect(text).toContain('"code":"BAD_REQUEST"');
  });

  // the HTTP parser takes exactly the declared bytes, so a length only disagrees beside chunked framing
  it.each(routes)('%s: a length beside chunked framing is 400 before any reading', async (path) => {
    const { statuses } = await exchange(
      `${head(path, 'Content-Length: 3\r\nTransfer-Encoding: chunked')}${chunked('abc')}0\r\n\r\n`,
    );
    expect(statuses).toEqual([400]);
  });

  it.each([...routes, '/read-late'])(
    '%s: a client gone mid-body is logged at info, nothing answered',
    async (path) => {
      arrived.delete(path);
      const before = lines.length;
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write(`${head(path, 'Content-Length: 100')}only part of it`),
      );
      socket.on('error', () => undefined);
      await waitUntil(() => arrived.has(path));
      socket.destroy();
      const logged = () => lines.slice(before).filter((l) => l.url === path);
      await waitUntil(() => logged().length > 0);
      expect(logged()).toEqual([expect.objectContaining({ level: 'info', '@message': 'client went away' })]);
      expect(lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    },
  );

  it('a chunked body over the limit that arrived whole before it was read is 413', async () => {
    const { statuses, text } = await exchange(
      `${head('/read-late-4', 'Transfer-Encoding: chunked')}${chunked('hel')}${chunked('lo')}0\r\n\r\n`,
    );
    expect(statuses).toEqual([413]);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('a body read after it arrived whole is the bytes as sent', async () => {
    const bytes = Buffer.from([0xff, 0x00, 0xfe, 0x41]);
    const { text } = await exchange(
      Buffer.concat([Buffer.from(head('/read-late', 'Content-Length: 4')), bytes, Buffer.from(then)]),
    );
    expect(statusesIn(text)).toEqual([200, 200]);
    expect(text).toContain('{"hex":"ff00fe41"}');
  });
});
