import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_METHODS, UNDOCUMENTED_ROUTES, type OpenApiDocument } from '../src/api/openapi-document.js';
import { startInboxHarness, type InboxHarness } from './harness.js';

/** fastify's `/api/hook/:endpointId/*` as the document spells it: `/api/hook/{endpointId}/{nestedPath}`. */
function toOpenApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{nestedPath}');
}

describe('the OpenAPI document served at /api/openapi.json', () => {
  let h: InboxHarness;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    h = await startInboxHarness();
    const r = await h.send('GET', '/api/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    doc = r.json as OpenApiDocument;
  });
  afterAll(() => h.close());

  it('documents every route the inbox serves, and no route it does not', () => {
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        OPENAPI_METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    const served = new Set<string>();
    for (const route of h.app.routes) {
      const [method = '', url = ''] = route.split(' ');
      const isInspectorPage = UNDOCUMENTED_ROUTES.includes(route.replace(/^HEAD /, 'GET '));
      if (!isInspectorPage) served.add(`${method} ${toOpenApiPath(url)}`);
    }
    // the receive URLs take every method Node knows; an OpenAPI 3.1 path item holds these eight. fastify
    // answers HEAD for every GET route (exposeHeadRoutes): the GET operation describes both.
    const expressible = [...served].filter((r) => {
      const [method = '', path = ''] = r.split(' ');
      const isImplicitHead = method === 'HEAD' && !documented.has(r) && served.has(`GET ${path}`);
      return (OPENAPI_METHODS as readonly string[]).includes(method.toLowerCase()) && !isImplicitHead;
    });
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
    expect(expressible.filter((r) => !documented.has(r))).toEqual([]);
    expect(served.size - expressible.length).toBeGreaterThan(0); // WebDAV, QUERY… on the receive URLs
    const inexpressible = [...served].filter((r) => !expressible.includes(r) && !r.startsWith('HEAD '));
    expect(inexpressible.filter((r) => !r.includes(' /api/hook/{endpointId}'))).toEqual([]);
    for (const route of UNDOCUMENTED_ROUTES) expect(h.app.routes).toContain(route);
  });
});
