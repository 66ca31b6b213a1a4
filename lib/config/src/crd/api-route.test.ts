import { describe, expect, it } from 'vitest';
import { parseApiRoute } from './api-route.js';
import { ConfigError } from '../errors.js';

const problems = (spec: unknown): readonly string[] => {
  try {
    parseApiRoute('demo/users', spec);
  } catch (e: unknown) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe('parseApiRoute', () => {
  it('reads routes with handlers, backends, defaults and rate limits', () => {
    expect(
      parseApiRoute('demo/users', {
        prefix: 'v1',
        routes: [
          {
            name: 'get-user',
            method: 'get',
            path: '/users/{id:\\d+}/',
            auth: false,
            handler: 'Users.get',
            requiredParams: ['id|int'],
          },
          {
            name: 'orders',
            method: '*',
            path: 'orders[/{rest:.+}]',
            backend: { service: 'orders', port: 8080, path: '/internal' },
            roles: ['billing'],
            rateLimit: {
              requestsPerUnit: 100,
              unit: 'Minute',
              descriptors: [{ key: 'client', from: 'remoteAddress' }],
            },
          },
        ],
      }),
    ).toEqual({
      prefix: 'v1',
      routes: [
        {
          name: 'get-user',
          method: 'GET',
          path: 'users/{id:\\d+}',
          auth: false,
          requiredParams: ['id|int'],
          roles: [],
          target: { kind: 'handler', handler: 'Users.get' },
          rateLimit: undefined,
        },
        {
          name: 'orders',
          method: '*',
          path: 'orders[/{rest:.+}]',
          auth: true,
          requiredParams: [],
          roles: ['billing'],
          target: {
            kind: 'backend',
            service: 'orders',
            namespace: '',
            port: 8080,
            path: '/internal',
            timeoutSeconds: 30,
            forwardAuthorization: false,
          },
          rateLimit: {
            requestsPerUnit: 100,
            unit: 'MINUTE',
            shadowMode: false,
            descriptors: [{ key: 'client', from: 'remoteAddress', name: '' }],
          },
        },
      ],
    });
  });

  it('refuses a bad role name, and roles on a route without auth', () => {
    expect(
      problems({
        routes: [
          { name: 'a', method: 'GET', path: 'a', handler: 'A.b', roles: ['ok', 'not ok'] },
          { name: 'b', method: 'GET', path: 'b', handler: 'A.b', auth: false, roles: ['ok'] },
        ],
      }),
    ).toEqual([
      'demo/users: routes[0].roles[1]: expected 1-64 characters from A-Z a-z 0-9 _ . : -',
      'demo/users: routes[1].roles: roles need auth: true',
    ]);
  });

  it("reads app and role descriptors without a name; a role one needs the route's roles", () => {
    const limited = (roles: string[]) => ({
      routes: [
        {
          name: 'a',
          method: 'GET',
          path: 'a',
          handler: 'A.b',
          roles,
          rateLimit: {
            requestsPerUnit: 1,
            unit: 'second',
            descriptors: [
              { key: 'tier', from: 'role' },
              { key: 'application', from: 'app' },
            ],
          },
        },
      ],
    });
    expect(
      parseApiRoute('demo/users', limited(['gold', 'silver'])).routes[0]?.rateLimit?.descriptors,
    ).toEqual([
      { key: 'tier', from: 'role', name: '' },
      { key: 'application', from: 'app', name: '' },
    ]);
    expect(problems(limited([]))).toEqual([
      "demo/users: routes[0].rateLimit.descriptors: 'tier': a role source needs the route's roles",
    ]);
    expect(
      problems({
        routes: [
          {
            name: 'a',
            method: 'GET',
            path: 'a',
            handler: 'A.b',
            rateLimit: { requestsPerUnit: 1, unit: 'second', descriptors: [{ key: 'k', from: 'scope' }] },
          },
        ],
      }),
    ).toEqual([
      'demo/users: routes[0].rateLimit.descriptors[0].from: expected one of remoteAddress, header, claim, pathParam, query, user, app, role',
    ]);
  });

  it('lists every problem with its path', () => {
    expect(
      problems({
        prefix: '/V1',
        routes: [
          { name: 'a', method: 'FETCH', path: 'x/{id', handler: 'nope' },
          { name: 'b', method: 'GET', path: 'y', handler: 'A.b', backend: { service: 's', port: 1 } },
          {
            name: 'b',
            method: 'GET',
            path: 'y',
            handler: 'A.b',
            rateLimit: { requestsPerUnit: 1, unit: 'fortnight' },
          },
          { name: 'c', method: 'GET', path: 'z', backend: { service: 'Bad_Name', port: 70000 } },
        ],
      }),
    ).toEqual([
      'demo/users: prefix: expected segments of a-z, 0-9 and -, separated by /',
      'demo/users: routes[0].method: expected one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, *',
      'demo/users: routes[0].path: unclosed "{" at offset 2',
      'demo/users: routes[0].handler: expected Class.method',
      'demo/users: routes[1]: exactly one of handler or backend is required',
      'demo/users: routes[2].rateLimit.unit: expected one of second, minute, hour, day, week, month, year',
      'demo/users: routes[3].backend.service: expected a Service name (DNS label)',
      'demo/users: routes[3].backend.port: expected a port from 1 to 65535',
      "demo/users: routes[2].name: route name 'b' is also used by routes[1]",
    ]);
  });

  it('rejects an empty route list and duplicate method+path', () => {
    expect(problems({ routes: [] })).toEqual(['demo/users: routes: at least one route is required']);
    expect(
      problems({
        routes: [
          { name: 'a', method: 'GET', path: 'x', handler: 'A.a' },
          { name: 'b', method: 'GET', path: '/x/', handler: 'A.b' },
        ],
      }),
    ).toEqual(["demo/users: routes[1]: GET 'x' is also served by routes[0]"]);
  });
});
