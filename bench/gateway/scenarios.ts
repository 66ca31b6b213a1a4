import type { Child } from '../common/child-process.js';
import { checkSample } from '../common/sample-check.js';
import type { ToolLoad } from '../common/tool-load.js';
import { createWrk } from '../common/wrk.js';
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
  /** Gateway workers, and processes of bare fastify and nginx beside them. */
  processes: number;
  ceiling: Target;
  /** Another server doing the same job, measured between the ceiling and ours: nginx for the upstream route. */
  reference?: Target;
  /** Through a gateway started with `gatewayEnv`. */
  ours: Target & { gatewayEnv: Readonly<Record<string, string>> };
}

/** What the scenarios run against, all started. */
export interface ScenarioServers {
  /** Gateway workers; bare fastify and nginx run as many processes. */
  processes: number;
  ceiling: { child: Child; port: number };
  backend: { child: Child; port: number };
  /** nginx proxying to the backend with keep-alive connections. */
  nginx: { child: Child; port: number };
  ratelimit: Child;
  open: { child: Child; port: number; env: Readonly<Record<string, string>> };
  jwt: { child: Child; port: number; env: Readonly<Record<string, string>>; token: string };
  /** The body of `GET /api/test` for the bench user. */
  testBody: string;
}

/**
 * The four comparisons with `s.processes` processes, in the order they run: each gateway route next to its
 * ceiling, the upstream route also next to nginx.
 */
export function buildScenarios(s: ScenarioServers): Scenario[] {
  const n = `${s.processes}p`;
  const fastify = (path: string, body: string): Target => ({
    label: `${n} GET ${path}, bare fastify (ceiling)`,
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
      processes: s.processes,
      ceiling: fastify('/api/ping', PONG_BODY),
      ours: {
        label: `${n} GET /api/ping handler, gateway auth none`,
        port: s.open.port,
        path: '/api/ping',
        body: PONG_BODY,
        servers: [s.open.child],
        gatewayEnv: s.open.env,
      },
    },
    {
      key: 'jwt',
      processes: s.processes,
      ceiling: fastify('/api/test', s.testBody),
      ours: {
        label: `${n} GET /api/test handler, gateway jwt (Bearer, Redis)`,
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
      processes: s.processes,
      ceiling: fastify(limited, PONG_BODY),
      ours: {
        label: `${n} GET ${limited} rate-limited handler, gateway + ratelimit`,
        port: s.open.port,
        path: limited,
        body: PONG_BODY,
        servers: [s.open.child, s.ratelimit],
        gatewayEnv: s.open.env,
      },
    },
    {
      key: 'upstream',
      processes: s.processes,
      ceiling: {
        label: `${n} GET /up, node:http backend called directly (ceiling)`,
        port: s.backend.port,
        path: '/up',
        body: PONG_BODY,
        servers: [s.backend.child],
      },
      reference: {
        label: `${n} GET /up, nginx -> backend (keep-alive)`,
        port: s.nginx.port,
        path: '/up',
        body: PONG_BODY,
        servers: [s.nginx.child, s.backend.child],
      },
      ours: {
        label: `${n} GET ${up} upstream, gateway -> backend`,
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
 * `GET` of `target.path` driven by wrk over `connections` keep-alive connections, to `target.port` or to
 * another server of the same kind on `port`. Before each run a few `fetch` calls check what wrk does not
 * read: status 200 and exactly the expected body.
 */
export async function createTargetLoad(
  target: Target,
  o: { port?: number; connections: number },
): Promise<ToolLoad> {
  const port = o.port ?? target.port;
  const wrk = await createWrk({
    port,
    path: target.path,
    method: 'GET',
    ...(target.headers ? { headers: target.headers } : {}),
    connections: o.connections,
  });
  return {
    run: (durationMs) => wrk.run(durationMs),
    checkSample: () => checkSample(() => getOnce(port, target)),
    close: () => wrk.close(),
  };
}

async function getOnce(port: number, target: Target): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${port}${target.path}`, { headers: target.headers ?? {} });
  const text = await res.text();
  if (res.status !== 200) return `HTTP ${res.status} ${text.slice(0, 60)}`;
  return text === target.body ? undefined : `unexpected body ${text.slice(0, 60)}`;
}
