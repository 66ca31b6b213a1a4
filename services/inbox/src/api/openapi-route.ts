import type { HttpApp } from '@portcullis/kit';
import { OPENAPI_PATH, type OpenApiDocument } from './openapi-document.js';

/**
 * Records every route registered on `app` from now on (plugins included) as `METHOD /url`, fastify's
 * spelling: what the document is checked against (test/openapi-document.test.ts). Call before any route.
 */
export function recordRoutes(app: HttpApp): readonly string[] {
  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push(`${method} ${route.url}`);
  });
  return routes;
}

/** `GET /api/openapi.json`: the document, public (it holds no secret), serialised once. */
export function registerOpenApiRoute(app: HttpApp, doc: OpenApiDocument): void {
  const text = JSON.stringify(doc);
  app.get(OPENAPI_PATH, (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(text),
  );
}
