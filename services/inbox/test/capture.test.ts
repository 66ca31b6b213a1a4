import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { beforeAll, expect, it } from 'vitest';
import type { CaptureDetail } from '../src/contract/capture-json.js';
import { describeEachStore, type InboxUnderTest } from './harness.js';

const MAX = 1_048_576;

describeEachStore('capture', (get) => {
  let h: InboxUnderTest;
  let ep: { id: string; token: string };
  beforeAll(async () => {
    h = get();
    ep = await h.createEndpoint('capture tests');
  });
  const detail = async (requestId: string): Promise<CaptureDetail> => {
    const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${requestId}`, { token: ep.token });
    expect(r.status).toBe(200);
    return r.json as CaptureDetail;
  };
  const count = async (): Promise<number> =>
    ((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json as { requestCount: number })
      .requestCount;

  it('answers 200 {ok, requestId} with the id in X-Inbox-Request-Id', async () => {
    const r = await h.send('POST', `/api/hook/${ep.id}`, { body: 'hi' });
    expect(r.status).toBe(200);
    const json = r.json as { ok: boolean; requestId: string };
    expect(json).toEqual({ ok: true, requestId: expect.stringMatching(/^\d+-\d+$/) as unknown });
    expect(r.headers['x-inbox-request-id']).toBe(json.requestId);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps binary bodies byte for byte: invalid UTF-8, NUL and gzip bytes', async () => {
    const binary = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]), gzipSync('{"a":1}')]);
    const r = await h.send('POST', `/api/hook/${ep.id}`, {
      headers: { 'content-type': 'application/octet-stream' },
      body: binary,
    });
    const d = await detail((r.json as { requestId: string }).requestId);
    expect(Buffer.from(d.bodyBase64, 'base64').equals(binary)).toBe(true);
    expect(d.bodySha256).toBe(createHash('sha256').update(binary).digest('hex'));
    expect(d.bodySize).toBe(binary.length);
    expect(d.body).toEqual({ kind: 'none', reason: 'binary' });
    expect(d.raw.endsWith(`\r\n\r\n[binary body: ${binary.length} bytes, not shown]`)).toBe(true);

    const gzipped = gzipSync(JSON.stringify({ event: 'push', n: 1 }));
    const g = await h.send('POST', `/api/hook/${ep.id}`, {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipped,
    });
    const gd = await detail((g.json as { requestId: string }).requestId);
    expect(Buffer.from(gd.bodyBase64, 'base64').equals(gzipped)).toBe(true);
    expect(gd.body).toEqual({ kind: 'none', reason: 'encoded' });
  });

  it('refuses a body of 1 MiB + 1 with 413 JSON, declared or chunked, storing nothing', async () => {
    const before = await count();
    const big = Buffer.alloc(MAX + 1, 0x61);
    const declared = await h.send('POST', `/api/hook/${ep.id}`, { body: big });
    expect([declared.status, declared.json]).toEqual([
      413,
      { error: `request body larger than ${MAX} bytes`, code: 'BODY_TOO_LARGE' },
    ]);
    const chunked = await h.send('PUT', `/api/hook/${ep.id}/x`, { body: big, chunkBytes: 64 * 1024 });
    expect(chunked.status).toBe(413);
    expect(await count()).toBe(before);

    const exact = await h.send('POST', `/api/hook/${ep.id}`, {
      body: big.subarray(0, MAX),
      chunkBytes: 1000,
    });
    expect(exact.status).toBe(200);
    expect((await detail((exact.json as { requestId: string }).requestId)).bodySize).toBe(MAX);
  });

  it('keeps headers as sent: order, odd casing and duplicates', async () => {
    const rawHeaders = [
      ...['X-Dup', '1', 'content-TYPE', 'application/json', 'x-DUP', '2', 'connection', 'close'],
      ...['X-Hub-Signature-256', 'sha256=abc', 'x-dup', '3', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2'],
    ];
    const r = await h.send('POST', `/api/hook/${ep.id}/github?x=1`, { rawHeaders, body: '{"zen": true}' });
    const d = await detail((r.json as { requestId: string }).requestId);
    const sent: Array<[string, string]> = [['Host', `127.0.0.1:${h.port}`]];
    for (let i = 0; i < rawHeaders.length; i += 2) sent.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
    sent.push(['Content-Length', '13']);
    expect(d.headers).toEqual(sent);
    expect(d.contentType).toBe('application/json');
    expect(d.body).toEqual({ kind: 'json', value: { zen: true } });
    expect(d.raw).toBe(
      [
        `POST /api/hook/${ep.id}/github?x=1 HTTP/1.1`,
        ...sent.map(([n, v]) => `${n}: ${v}`),
        '',
        '{"zen": true}',
      ].join('\r\n'),
    );
  });

  it('captures nested paths and query strings raw, with a parsed view', async () => {
    const path = `/api/hook/${ep.id}/a/b%20c/../d/?x=1&x=2&y=%20&flag&e=%E2%82%AC`;
    const r = await h.send('GET', path);
    const d = await detail((r.json as { requestId: string }).requestId);
    expect(d).toMatchObject({
      method: 'GET',
      url: path,
      path: `/api/hook/${ep.id}/a/b%20c/../d/`,
      nestedPath: '/a/b%20c/../d/',
      query: 'x=1&x=2&y=%20&flag&e=%E2%82%AC',
      queryParams: { x: ['1', '2'], y: ' ', flag: '', e: '€' },
      body: { kind: 'empty' },
      httpVersion: '1.1',
      remoteAddress: expect.stringMatching(/127\.0\.0\.1/) as unknown,
    });
    const slash = await h.send('DELETE', `/api/hook/${ep.id}/`);
    expect((await detail((slash.json as { requestId: string }).requestId)).nestedPath).toBe('/');
  });

  it('captures any method, bodies of GET and DELETE, and content types fastify would refuse', async () => {
    const cases: Array<{ method: string; body?: string; headers?: Record<string, string> }> = [
      { method: 'GET', body: 'get-body' },
      { method: 'DELETE', body: 'delete-body' },
      { method: 'PROPFIND', body: '<propfind/>', headers: { 'content-type': 'application/xml' } },
      { method: 'QUERY', body: 'select 1' },
      { method: 'PATCH', body: 'a=1', headers: { 'content-type': 'not a media type' } },
      { method: 'TRACE' },
      { method: 'PURGE' },
    ];
    for (const c of cases) {
      const r = await h.send(c.method, `/api/hook/${ep.id}/m`, {
        ...(c.body === undefined ? {} : { body: c.body }),
        ...(c.headers ? { headers: c.headers } : {}),
      });
      expect([c.method, r.status]).toEqual([c.method, 200]);
      const d = await detail((r.json as { requestId: string }).requestId);
      expect([d.method, Buffer.from(d.bodyBase64, 'base64').toString()]).toEqual([c.method, c.body ?? '']);
    }
    const head = await h.send('HEAD', `/api/hook/${ep.id}`);
    expect(head.status).toBe(200);
    const id = head.headers['x-inbox-request-id'] as string;
    expect((await detail(id)).method).toBe('HEAD');
  });

  it('captures a CORS preflight and allows what it asks for', async () => {
    const r = await h.send('OPTIONS', `/api/hook/${ep.id}`, {
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type,x-signature',
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'PUT',
      'access-control-allow-headers': 'content-type,x-signature',
    });
    expect((await detail(r.headers['x-inbox-request-id'] as string)).method).toBe('OPTIONS');
  });

  it('answers 404 JSON for an unknown or malformed endpoint id, storing nothing', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'short', '%2e%2e']) {
      const r = await h.send('POST', `/api/hook/${id}/x`, { body: 'lost' });
      expect([r.status, r.json]).toEqual([404, { error: 'no such endpoint', code: 'NOT_FOUND' }]);
    }
  });

  it('counts captures by outcome on /metrics', async () => {
    const text = (await h.send('GET', '/metrics')).body.toString();
    expect(text).toMatch(/portcullis_inbox_captures_total\{outcome="stored",component="inbox"\} [1-9]/);
    expect(text).toMatch(/portcullis_inbox_captures_total\{outcome="too_large",component="inbox"\} 2/);
    expect(text).toMatch(/portcullis_inbox_captures_total\{outcome="unknown_endpoint",component="inbox"\} 3/);
  });
});
