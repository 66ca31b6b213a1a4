import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { compareGolden, readGoldenInputs } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HANDLER_CLASSES, routes as shippedRoutes } from '../routes.js';
import { parseParameterSpecs } from '../sanitize/index.js';
import { routesFromApiRoutes } from './api-routes.js';
import { buildRouteTable } from './build-table.js';
import type { Lookup } from './route-table.js';
import { routesFromModule, type RouteEntry, type RoutesDefinition } from './routes-module.js';

// Golden tests of the route table the gateway compiles: each testdata/in/<case>.yaml holds a routes module
// (`routes`: entries `[method, path, Class, method, options]` and groups; or `shippedRoutes: true`, the
// gateway's own), ApiRoute resources as the operator sends them over xDS (`apiRoutes`, encoded and decoded
// as the gateway receives them), and requests to look up. testdata/out/<case>.json is the table (every route
// with its parameter specs resolved to sanitizers), each lookup's answer, or the error that refuses the
// input. UPDATE_GOLDEN=1 rewrites the outputs; review the diff.

const testdata = join(import.meta.dirname, '../../testdata');
const apiRouteCodec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

interface Input {
  shippedRoutes?: boolean;
  routes?: Array<unknown[] | Record<string, unknown[][]>>;
  apiRoutes?: Array<Record<string, unknown>>;
  /** `METHOD path`, the path below the base path. */
  requests?: string[];
}

/** Stands for a class the routes module names but the gateway does not register. */
const UNREGISTERED = { handle: (): unknown => ({}) };

function toEntry(e: unknown[]): RouteEntry {
  const [method, path, className, ...rest] = e;
  return [method, path, HANDLER_CLASSES[String(className)] ?? UNREGISTERED, ...rest] as RouteEntry;
}

function toDefinition(input: Input): RoutesDefinition {
  if (input.shippedRoutes) return shippedRoutes;
  return (input.routes ?? []).map((item) =>
    Array.isArray(item)
      ? toEntry(item)
      : Object.fromEntries(Object.entries(item).map(([prefix, entries]) => [prefix, entries.map(toEntry)])),
  );
}

function toAnswer(found: Lookup): unknown {
  switch (found.kind) {
    case 'match':
      return { route: found.match.route.id, params: found.match.params };
    case 'method-not-allowed':
      return { allow: found.allow };
    case 'not-found':
      return 'not found';
    default: {
      const unknown: never = found;
      return unknown;
    }
  }
}

function compile(input: Input): unknown {
  try {
    const code = routesFromModule(toDefinition(input), HANDLER_CLASSES);
    const resources = (input.apiRoutes ?? []).map((m) => ({ value: apiRouteCodec.encode(m) }));
    const table = buildRouteTable(code, routesFromApiRoutes(resources));
    return {
      routes: table.routes.map((r) => ({
        ...r,
        requiredParams: parseParameterSpecs(r.requiredParams).map(({ spec, name, sanitizer }) => ({
          spec,
          name,
          sanitizer,
        })),
        rateLimit: r.rateLimit ?? null,
      })),
      requests: Object.fromEntries(
        (input.requests ?? []).map((request) => {
          const [method = '', path = ''] = request.split(' ');
          return [request, toAnswer(table.lookup(method, path))];
        }),
      ),
    };
  } catch (err: unknown) {
    const e = err as Error & { code?: string };
    return { error: { class: e.constructor.name, code: e.code, message: e.message } };
  }
}

describe('compiled route table (golden)', () => {
  it.each(readGoldenInputs(testdata))('$name', ({ name, file }) => {
    const input = parse(readFileSync(file, 'utf8')) as Input;
    const { got, want } = compareGolden(join(testdata, 'out', `${name}.json`), compile(input));
    expect(got).toBe(want);
  });
});
