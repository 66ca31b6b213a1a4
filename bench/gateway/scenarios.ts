import type { Child } from '../common/child-process.js';
import { createHttpLoad, isExactly } from '../common/http-load.js';
import type { Load } from '../common/measure.js';
import { PONG_BODY, ROUTE_PREFIX } from './api-route.js';

export const SCENARIO_KEYS = ['handler', 'jwt', 'limited', 'upstream'] as const;
export type ScenarioKey = (typeof SCENARIO_KEYS)[number];

/** The one request a load repeats, where to, and the body every right answer has. */
export interface Target {
  label: string;
  port: number;
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** The processes whose CPU is reported as the server's. */
  servers: readonly Child[];
}

export interface Scenario {
  key: ScenarioKey;
  ceiling: Target;
  /** Through a gateway started with `gatewayEnv`. */
  ours: Target & { gatewayEnv: Readonly<Record<string, string>> };
}

/** What the scenarios run against, all started. */
export interface ScenarioServers {
  ceiling: { child: Child; port: number };
  backend: { child: Child; port: number };
  ratelimit: Child;
  open: { child: Child; port: number; env: Readonly<Record<string, string>> };
  jwt: { child: Child; port: number; env: Readonly<Record<string, string>>; token: string };
  /** The body of `GET /api/test` for the bench user. */
  testBody: string;
}

/** The four comparisons, in the order they run: each gateway route next to its ceiling. */
export function buildScenarios(s: ScenarioServers): Scenario[] {
  const fastify = (path: string, body: string): Target => ({
    label: `GET ${path}, bare fastify (ceiling)`,
    port: s.ceiling.port,
    path,
    body,
    servers: [s.ceiling.child],
  });
  const limited = `/api/${ROUTE_PREFIX}/limited`;
  const up = `/api/${ROUTE_PREFIX}/up`;
  return [
    {
      key: 'handler',
      ceiling: fastify('/api/ping', PONG_BODY),
      ours: {
        label: 'GET /api/ping handler, gateway auth none',
        port: s.open.port,
        path: '/api/ping',
        body: PONG_BODY,
        servers: [s.open.child],
        gatewayEnv: s.open.env,
      },
    },
    {
      key: 'jwt',
      ceiling: fastify('/api/test', s.testBody),
      ours: {
        label: 'GET /api/test handler, gateway jwt (Bearer, Redis)',
        port: s.jwt.port,
        path: '/api/test',
        body: s.testBody,
        headers: { authorization: `Bearer ${s.jwt.token}` },
        servers: [s.jwt.child],
        gatewayEnv: s.jwt.env,
      },
    },
    {
      key: 'limited',
      ceiling: fastify(limited, PONG_BODY),
      ours: {
        label: `GET ${limited} rate-limited handler, gateway + ratelimit`,
        port: s.open.port,
        path: limited,
        body: PONG_BODY,
        servers: [s.open.child, s.ratelimit],
        gatewayEnv: s.open.env,
      },
    },
    {
      key: 'upstream',
      ceiling: {
        label: 'GET /up, node:http backend called directly (ceiling)',
        port: s.backend.port,
        path: '/up',
        body: PONG_BODY,
        servers: [s.backend.child],
      },
      ours: {
        label: `GET ${up} upstream, gateway -> backend`,
        port: s.open.port,
        path: up,
        body: PONG_BODY,
        servers: [s.open.child, s.backend.child],
        gatewayEnv: s.open.env,
      },
    },
  ];
}

/**
 * `GET` of `target.path` over at most `maxSockets` keep-alive connections, to `target.port` or to another
 * server of the same kind on `port`.
 */
export function createTargetLoad(target: Target, o: { port?: number; maxSockets: number }): Load {
  return createHttpLoad({
    port: o.port ?? target.port,
    method: 'GET',
    path: target.path,
    ...(target.headers ? { headers: target.headers } : {}),
    check: isExactly(target.body),
    maxSockets: o.maxSockets,
  });
}
