import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnNode, type Child } from '../common/child-process.js';
import { serviceBundle } from '../common/service-bundle.js';
import { distinctFreePorts } from '../common/ports.js';
import type { OnCleanup } from '../common/run-bench.js';
import { waitForHttpOk } from '../common/wait-for-http.js';

const READY_TIMEOUT_MS = 30_000;
/** Shared by the gateways of a run, so that a token one issued passes in another. */
const JWT_SECRET = randomBytes(48).toString('base64url');
const SESSION_KEY = randomBytes(48).toString('base64url');

export interface GatewayProcess {
  child: Child;
  port: number;
}

export interface GatewayOptions {
  name: string;
  /** Settings on top of the bench's own (host, port, log level, keys, state directory). */
  env: Readonly<Record<string, string>>;
  /** Where the temporary state directory goes (keys are given, so nothing should be written to it). */
  stateDir: string;
  /** When set, the gateway writes a V8 CPU profile (`--cpu-prof`) into this directory on exit. */
  cpuProfDir?: string;
}

/**
 * The gateway's bundle (what its image runs) on 127.0.0.1 logging at warn, with the run's JWT secret and session key;
 * resolves once `/healthz` answers, which is after its first routes over xDS when it has a server. Stopped
 * by `onCleanup`, registered as soon as it is spawned.
 */
export async function startGateway(o: GatewayOptions, onCleanup: OnCleanup): Promise<GatewayProcess> {
  const [port] = (await distinctFreePorts(1)) as [number];
  const bundle = await serviceBundle('gateway');
  const child = spawnNode({
    name: o.name,
    script: bundle.script,
    env: {
      ...bundle.env,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      GATEWAY_JWT_SECRET: JWT_SECRET,
      GATEWAY_SESSION_KEYS: SESSION_KEY,
      GATEWAY_STATE_DIR: o.stateDir,
      // no load balancer to drain: the default 5 s would outlast the stop's grace, and a killed gateway
      // writes no CPU profile
      GATEWAY_SHUTDOWN_DELAY: '0s',
      LOG_LEVEL: 'warn',
      ...o.env,
    },
    nodeFlags: o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [],
  });
  onCleanup(() => child.stop());
  await waitForHttpOk(`http://127.0.0.1:${port}/healthz`, child, READY_TIMEOUT_MS);
  await waitForEveryWorker(port, Number(o.env.GATEWAY_WORKERS ?? '1'));
  return { child, port };
}

/**
 * Until `/readyz` answers 200 twice per worker in a row, each on a connection of its own (node:cluster hands
 * new connections to the workers in turn): every worker has its routes.
 */
async function waitForEveryWorker(port: number, workers: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let inARow = 0;
  while (inARow < 2 * workers) {
    if (Date.now() > deadline) throw new Error(`not every gateway worker on port ${port} became ready`);
    inARow = (await readyzOnNewConnection(port)) === 200 ? inARow + 1 : 0;
    if (inARow === 0) await sleep(50);
  }
}

function readyzOnNewConnection(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Creates an account in the Redis at `redisUrl` with `hack/create-user.ts`; resolves with its id. */
export async function createUser(
  o: { redisUrl: string; username: string; password: string },
  onCleanup: OnCleanup,
): Promise<string> {
  const child = spawnNode({
    name: 'create-user',
    script: 'hack/create-user.ts',
    args: [o.username],
    env: { REDIS_URL: o.redisUrl, PORTCULLIS_PASSWORD: o.password },
  });
  onCleanup(() => child.stop());
  try {
    return (await child.firstLine).trim();
  } finally {
    await child.stop();
  }
}

/** `POST /api/auth` on a gateway in jwt mode; resolves with the token. */
export async function logIn(port: number, o: { username: string; password: string }): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/api/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(o),
  });
  const body = (await r.json()) as { jwt?: unknown };
  if (r.status !== 200 || typeof body.jwt !== 'string')
    throw new Error(`POST /api/auth answered ${r.status}`);
  return body.jwt;
}
