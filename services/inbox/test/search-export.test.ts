import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { isIPv4, isIPv6 } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { beforeAll, expect, it } from 'vitest';
import type { CaptureDetail, CaptureSummary } from '../src/contract/capture-json.js';
import { ADMIN_TOKEN, describeEachStore, type InboxUnderTest } from './harness.js';

// Search and filter of an endpoint's captures, HAR and NDJSON export and HAR import, on the memory store
// and on a real Redis: the same answers from both.

const require = createRequire(import.meta.url);
const harSchemas = require('har-schema') as Record<string, { $id: string }>;
const draft06 = require('ajv/dist/refs/json-schema-draft-06.json') as object;

interface Page {
  requests: CaptureSummary[];
  nextBefore: string | null;
  scanned?: number;
}
interface HarLog {
  log: {
    version: string;
    creator: { name: string };
    comment: string;
    entries: Array<{
      request: {
        method: string;
        url: string;
        headers: Array<{ name: string; value: string }>;
        queryString: Array<{ name: string; value: string }>;
        postData?: { mimeType: string; text: string; _bodyBase64?: string };
      };
      _requestId: string;
    }>;
  };
}

/** The HAR 1.2 JSON Schema of the `har-schema` package (draft-06). */
function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(draft06);
  ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addFormat('ipv4', isIPv4);
  ajv.addFormat('ipv6', isIPv6);
  for (const s of Object.values(harSchemas)) ajv.addSchema(s);
  const validate = ajv.getSchema('har.json#');
  if (!validate) throw new Error('har-schema: no har.json');
  return (data: unknown): unknown => (validate(data) ? [] : validate.errors);
}

/** A gzip body: not UTF-8, and its text is not what is searched. */
const BINARY = gzipSync('hidden treasure');

describeEachStore(
  'search, export and import',
  (get) => {
    let h: InboxUnderTest;
    let ep: { id: string; token: string };
    const ids: Record<string, string> = {};
    const list = async (query: string, token = ep.token): Promise<Page> => {
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?${query}`, { token });
      expect(r.status, r.body.toString()).toBe(200);
      return r.json as Page;
    };
    const idsOf = (p: Page): string[] => p.requests.map((r) => r.id);
    const capture = async (
      name: string,
      method: string,
      path: string,
      o: Parameters<InboxUnderTest['send']>[2] = {},
    ) => {
      const r = await h.send(method, `/api/hook/${ep.id}${path}`, o);
      expect(r.status).toBe(200);
      ids[name] = (r.json as { requestId: string }).requestId;
    };

    beforeAll(async () => {
      h = get();
      ep = await h.createEndpoint('search');
      await capture('order', 'POST', '/orders/42?expand=items', {
        rawHeaders: ['Content-Type', 'application/json', 'X-GitHub-Event', 'push'],
        body: '{"event":"Order.Refunded","amount":12}',
      });
      await capture('ping', 'GET', '/health');
      await capture('binary', 'PUT', '/orders/43/blob', {
        rawHeaders: ['Content-Encoding', 'gzip', 'Content-Type', 'application/octet-stream'],
        body: BINARY,
      });
      await capture('form', 'POST', '/forms?x=1&Tag=Blue', {
        rawHeaders: ['Content-Type', 'application/x-www-form-urlencoded', 'X-GitHub-Event', 'issues'],
        body: 'a=1&b=caf%C3%A9',
      });
    });

    it('lists everything without a filter, as before', async () => {
      const page = await list('limit=10');
      expect(idsOf(page)).toEqual([ids.form, ids.binary, ids.ping, ids.order]);
      expect(page.scanned).toBeUndefined();
    });

    it('filters by method, path pattern, header, query and body text', async () => {
      expect(idsOf(await list('method=post'))).toEqual([ids.form, ids.order]);
      expect(idsOf(await list('method=GET,put'))).toEqual([ids.binary, ids.ping]);
      expect(idsOf(await list('path=/orders/*'))).toEqual([ids.binary, ids.order]);
      expect(idsOf(await list('path=/orders/42'))).toEqual([ids.order]);
      expect(idsOf(await list('path=/orders'))).toEqual([]);
      expect(idsOf(await list('header=x-github-event'))).toEqual([ids.form, ids.order]);
      expect(idsOf(await list('header=X-GitHub-Event:PUSH'))).toEqual([ids.order]);
      expect(idsOf(await list('header=content-type:json&header=x-github-event'))).toEqual([ids.order]);
      expect(idsOf(await list('query=tag=blue'))).toEqual([ids.form]);
      expect(idsOf(await list('q=order.refunded'))).toEqual([ids.order]);
      expect(idsOf(await list(`q=${encodeURIComponent('caf%C3')}`))).toEqual([ids.form]);
      // compressed bodies are searched as stored, not decompressed
      expect(idsOf(await list('q=treasure'))).toEqual([]);
      expect(idsOf(await list('method=POST&q=refunded&path=/orders/*'))).toEqual([ids.order]);
      expect((await list('method=POST')).scanned).toBe(4);
    });

    it('filters by time range, from and to inclusive, by the request id', async () => {
      const ms = (id: string | undefined) => Number(id?.split('-')[0]);
      const from = ms(ids.binary);
      const page = await list(`from=${from}&to=${new Date(ms(ids.form)).toISOString()}`);
      expect(idsOf(page)).toEqual(
        [ids.form, ids.binary, ids.ping, ids.order].filter((id) => ms(id) >= from && ms(id) <= ms(ids.form)),
      );
      expect(idsOf(page)).toContain(ids.binary);
      expect(idsOf(await list('from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z'))).toEqual([]);
    });

    it('filters by forwarding outcome: the latest attempt per target', async () => {
      const at = new Date().toISOString();
      const record = (id: string | undefined, target: string, outcome: 'delivered' | 'retrying' | 'dead') =>
        h.store.recordForwardAttempt(ep.id, id ?? '', { target, attempt: 1, at, outcome, status: 500 });
      await record(ids.order, 'http://a.test/', 'retrying');
      await record(ids.order, 'http://a.test/', 'delivered');
      await record(ids.ping, 'http://a.test/', 'dead');
      await record(ids.ping, 'http://b.test/', 'retrying');
      expect(idsOf(await list('forwarding=delivered'))).toEqual([ids.order]);
      expect(idsOf(await list('forwarding=retrying'))).toEqual([ids.ping]);
      expect(idsOf(await list('forwarding=dead'))).toEqual([ids.ping]);
      expect(idsOf(await list('forwarding=none'))).toEqual([ids.form, ids.binary]);
    });

    it('pages a search with the cursor', async () => {
      const first = await list('method=POST,PUT&limit=2');
      expect(idsOf(first)).toEqual([ids.form, ids.binary]);
      const second = await list(`method=POST,PUT&limit=2&before=${first.nextBefore}`);
      expect(idsOf(second)).toEqual([ids.order]);
      expect(second.nextBefore).toBeNull();
    });

    it('refuses a bad filter, naming every problem', async () => {
      const r = await h.api(
        'GET',
        `/api/endpoints/${ep.id}/requests?forwarding=lost&from=yesterday&path=x&q=${'a'.repeat(201)}`,
        {
          token: ep.token,
        },
      );
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        code: 'INVALID_ARGUMENT',
        error:
          'forwarding: expected one of delivered, retrying, dead, none; from: expected an ISO 8601 time or milliseconds since the epoch; path: expected a nested path starting with / or *; q: at most 200 characters',
      });
      expect((await h.api('GET', `/api/endpoints/${ep.id}/requests?method=POST`)).status).toBe(401);
    });

    it('stops a search at the scan budget and answers a cursor that continues it', async () => {
      const big = await h.createEndpoint('budget');
      const sendTo = (path: string) => h.send('POST', `/api/hook/${big.id}${path}`, { body: 'x' });
      await sendTo('/needle');
      for (let i = 0; i < 150; i++) await sendTo('/hay');
      const page = async (query: string): Promise<Page> =>
        (await h.api('GET', `/api/endpoints/${big.id}/requests?${query}`, { token: big.token })).json as Page;
      const first = await page('path=/needle');
      expect(first.requests).toEqual([]);
      expect(first.scanned).toBe(100); // INBOX_SEARCH_MAX_SCAN
      expect(first.nextBefore).not.toBeNull();
      const second = await page(`path=/needle&before=${first.nextBefore}`);
      expect(second.requests.map((r) => r.nestedPath)).toEqual(['/needle']);
      expect(second.scanned).toBe(51);
      expect(second.nextBefore).toBeNull();
    });

    it('exports HAR 1.2 that the HAR schema accepts, with exact bodies, filtered too', async () => {
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests.har`, { token: ep.token });
      expect(r.status).toBe(200);
      expect(r.headers['content-disposition']).toBe(`attachment; filename="${ep.id}.har"`);
      const har = r.json as HarLog;
      expect(harValidator()(har)).toEqual([]);
      expect(har.log.version).toBe('1.2');
      expect(har.log.creator.name).toBe('portcullis-inbox');
      expect(har.log.entries.map((e) => e._requestId)).toEqual([ids.form, ids.binary, ids.ping, ids.order]);
      const [form, binary, ping, order] = har.log.entries;
      // INBOX_PUBLIC_URL's origin
      expect(order?.request.url).toBe(`http://localhost:8089/api/hook/${ep.id}/orders/42?expand=items`);
      expect(order?.request.postData).toEqual({
        mimeType: 'application/json',
        text: '{"event":"Order.Refunded","amount":12}',
      });
      expect(order?.request.headers.slice(1, 3)).toEqual([
        { name: 'Content-Type', value: 'application/json' },
        { name: 'X-GitHub-Event', value: 'push' },
      ]);
      expect(form?.request.queryString).toEqual([
        { name: 'x', value: '1' },
        { name: 'Tag', value: 'Blue' },
      ]);
      expect(ping?.request.postData).toBeUndefined();
      expect(Buffer.from(binary?.request.postData?._bodyBase64 ?? '', 'base64').equals(BINARY)).toBe(true);
      expect(har.log.comment).toBe(`4 requests of endpoint ${ep.id}, newest first`);

      const filtered = await h.api('GET', `/api/endpoints/${ep.id}/requests.har?method=PUT`, {
        token: ep.token,
      });
      expect((filtered.json as HarLog).log.entries.map((e) => e._requestId)).toEqual([ids.binary]);
    });

    it('exports NDJSON, one capture a line with the exact body', async () => {
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests.ndjson?path=/orders/*`, {
        token: ep.token,
      });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(r.headers['content-disposition']).toBe(`attachment; filename="${ep.id}.ndjson"`);
      const lines = r.body
        .toString()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as CaptureDetail);
      expect(lines.map((l) => l.id)).toEqual([ids.binary, ids.order]);
      expect(Buffer.from(lines[0]?.bodyBase64 ?? '', 'base64').equals(BINARY)).toBe(true);
      expect(lines[0]?.headers[1]).toEqual(['Content-Encoding', 'gzip']);
    });

    it('imports an export into another endpoint: same method, path, headers and body bytes', async () => {
      const exported = await h.api('GET', `/api/endpoints/${ep.id}/requests.har`, { token: ep.token });
      const other = await h.createEndpoint('imported');
      const r = await h.api('POST', `/api/endpoints/${other.id}/requests/import`, {
        token: other.token,
        body: exported.json,
      });
      expect(r.status, r.body.toString()).toBe(201);
      const { imported, requestIds } = r.json as { imported: number; requestIds: string[] };
      expect(imported).toBe(4);
      const read = async (endpointId: string, id: string, token: string) =>
        (await h.api('GET', `/api/endpoints/${endpointId}/requests/${id}`, { token })).json as CaptureDetail;
      // oldest first, as captured
      const originals = [ids.order, ids.ping, ids.binary, ids.form];
      for (const [i, id] of requestIds.entries()) {
        const copy = await read(other.id, id, other.token);
        const original = await read(ep.id, originals[i] ?? '', ep.token);
        expect(copy.method).toBe(original.method);
        expect(copy.nestedPath).toBe(original.nestedPath);
        expect(copy.query).toBe(original.query);
        expect(copy.url).toBe(`/api/hook/${other.id}${original.url.slice(`/api/hook/${ep.id}`.length)}`);
        expect(copy.headers).toEqual(original.headers);
        expect(copy.bodySha256).toBe(original.bodySha256);
        expect(copy.bodyBase64).toBe(original.bodyBase64);
        expect(copy.remoteAddress).toBe('import');
      }
    });

    it('replays an imported capture like any other: the same bytes to the target', async () => {
      const exported = await h.api('GET', `/api/endpoints/${ep.id}/requests.har?method=PUT`, {
        token: ep.token,
      });
      const other = await h.createEndpoint('replayed');
      const r = await h.api('POST', `/api/endpoints/${other.id}/requests/import`, {
        token: other.token,
        body: exported.json,
      });
      const [id] = (r.json as { requestIds: string[] }).requestIds;
      const received: Array<{ method: string; url: string; body: Buffer; encoding: string | undefined }> = [];
      const target = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const encoding = req.headers['content-encoding'];
          received.push({
            method: req.method ?? '',
            url: req.url ?? '',
            body: Buffer.concat(chunks),
            encoding,
          });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = target.address() as AddressInfo;
        const replay = await h.api('POST', `/api/endpoints/${other.id}/requests/${id}/replay`, {
          token: other.token,
          body: { to: `http://127.0.0.1:${port}/hooks` },
        });
        expect(replay.status, replay.body.toString()).toBe(200);
        expect(received).toHaveLength(1);
        expect(received[0]?.method).toBe('PUT');
        expect(received[0]?.url).toBe('/hooks/orders/43/blob');
        expect(received[0]?.encoding).toBe('gzip');
        expect(received[0]?.body.equals(BINARY)).toBe(true);
      } finally {
        await new Promise((resolve) => target.close(resolve));
      }
    });

    it('imports a HAR from elsewhere: the path below the endpoint, pseudo-headers dropped', async () => {
      const other = await h.createEndpoint('foreign');
      const har = {
        log: {
          version: '1.2',
          creator: { name: 'browser', version: '1' },
          entries: [
            {
              startedDateTime: '2026-01-01T00:00:02Z',
              request: {
                method: 'PATCH',
                url: 'https://api.example.com/v1/items/%2e%2e?a=1#frag',
                httpVersion: 'http/2.0',
                headers: [
                  { name: ':authority', value: 'api.example.com' },
                  { name: 'content-type', value: 'text/plain' },
                ],
                postData: { mimeType: 'text/plain', text: 'é' },
              },
            },
            {
              startedDateTime: '2026-01-01T00:00:01Z',
              request: {
                method: 'GET',
                url: 'https://api.example.com/',
                httpVersion: 'HTTP/1.1',
                headers: [],
              },
            },
          ],
        },
      };
      const r = await h.api('POST', `/api/endpoints/${other.id}/requests/import`, {
        token: other.token,
        body: har,
      });
      expect(r.status, r.body.toString()).toBe(201);
      const page = (await h.api('GET', `/api/endpoints/${other.id}/requests`, { token: other.token }))
        .json as Page;
      expect(page.requests.map((s) => [s.method, s.url])).toEqual([
        ['PATCH', `/api/hook/${other.id}/v1/items/%2e%2e?a=1`],
        ['GET', `/api/hook/${other.id}/`],
      ]);
      const patch = (
        await h.api('GET', `/api/endpoints/${other.id}/requests/${page.requests[0]?.id}`, {
          token: other.token,
        })
      ).json as CaptureDetail;
      expect(patch.headers).toEqual([['content-type', 'text/plain']]);
      expect(patch.httpVersion).toBe('2.0');
      expect(Buffer.from(patch.bodyBase64, 'base64').toString()).toBe('é');
    });

    it('refuses an import that is not a HAR, or with bad entries, storing nothing', async () => {
      const other = await h.createEndpoint('refused');
      const post = (body: unknown) =>
        h.api('POST', `/api/endpoints/${other.id}/requests/import`, { token: other.token, body });
      expect((await post({ entries: [] })).json).toEqual({
        code: 'INVALID_ARGUMENT',
        error: 'expected a HAR: {"log": {"entries": [...]}}',
      });
      const bad = await post({
        log: {
          entries: [
            { request: { method: 'GET', url: '/ok', headers: [] } },
            { request: { method: 'BAD METHOD', url: 'no path', headers: [{ name: 'a b', value: 'x' }] } },
            {
              request: {
                method: 'POST',
                url: '/',
                headers: [],
                postData: { mimeType: '', _bodyBase64: '!!' },
              },
            },
          ],
        },
      });
      expect(bad.status).toBe(400);
      expect((bad.json as { error: string }).error).toBe(
        'log.entries[1].request.method: expected a method; log.entries[1].request.url: expected an absolute URL or a path; log.entries[1].request.headers[0]: expected {name, value} of a valid header; log.entries[2].request.postData._bodyBase64: expected base64',
      );
      const big = await post({
        log: {
          entries: [
            { request: { method: 'POST', url: '/', headers: [], postData: { text: 'x'.repeat(70_000) } } },
          ],
        },
      });
      expect(big.status).toBe(413); // INBOX_IMPORT_MAX_BYTES
      expect((big.json as { code: string }).code).toBe('BODY_TOO_LARGE');
      const tooMany = await post({ log: { entries: Array.from({ length: 1001 }, () => ({})) } });
      expect((tooMany.json as { error: string }).error).toBe(
        'log.entries: at most 1000 per import, got 1001',
      );
      expect((await h.api('GET', `/api/endpoints/${other.id}`, { token: other.token })).json).toMatchObject({
        requestCount: 0,
      });
      expect(
        (await h.api('POST', `/api/endpoints/${other.id}/requests/import`, { token: ADMIN_TOKEN.slice(1) }))
          .status,
      ).toBe(401);
    });
  },
  { INBOX_SEARCH_MAX_SCAN: '100', INBOX_IMPORT_MAX_BYTES: '65536', INBOX_EGRESS_ALLOW_PRIVATE: 'true' },
);
