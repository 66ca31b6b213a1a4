import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHackScript, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movedLocalPorts } from './local-ports.js';

// Issue 38: what a newcomer meets with `npm start`: one line per listener, the example routes answering,
// sign-in without Redis (an account from hack/create-user.ts), and a quiet Ctrl-C well under the 5-6 s it
// took (the gateway's drain delay, xDS clients warning while the operator stopped first).

const repo = join(import.meta.dirname, '..');
const STARTUP_MS = 240_000;
const PASSWORD = 'correct horse battery';
const SERVICES = ['operator', 'ratelimit', 'gateway', 'inbox', 'orders'];
/** The orders route's backend in examples/resources/apiroute-users.yaml. */
const ORDERS_BACKEND = 'service: orders\n        port: 3001';

interface NpmStart {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  ports: Awaited<ReturnType<typeof movedLocalPorts>>;
  accountsFile: string;
  stateDir: string;
}

/** `npm start` as from a shell, in its own process group (as a terminal runs it), on free ports. */
async function npmStart(env: Record<string, string>): Promise<NpmStart> {
  const ports = await movedLocalPorts();
  const stateDir = await mkdtemp(join(tmpdir(), 'issue-38-state-'));
  // the examples as npm start serves them, the orders route on the moved port of the example backend
  const manifests = join(stateDir, 'resources');
  await cp(join(repo, 'examples/resources'), manifests, { recursive: true });
  const routes = join(manifests, 'apiroute-users.yaml');
  const example = await readFile(routes, 'utf8');
  expect(example).toContain(ORDERS_BACKEND);
  await writeFile(
    routes,
    example.replace(ORDERS_BACKEND, `service: orders\n        port: ${ports.ports.ORDERS}`),
  );
  const accountsFile = join(stateDir, 'accounts.json');
  const child = spawn('npm', ['start'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...ports.merged,
      OPERATOR_MANIFESTS_DIR: manifests,
      GATEWAY_STATE_DIR: stateDir,
      GATEWAY_ACCOUNTS_FILE: accountsFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    await waitUntil(() => {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      return output.includes('Portcullis is up') && SERVICES.every((s) => readyLine(output, s) !== undefined);
    }, STARTUP_MS);
  } catch (err: unknown) {
    if (child.exitCode === null) process.kill(-(child.pid ?? 0), 'SIGINT');
    throw new Error(`${(err as Error).message}; npm start printed:\n${output}`);
  }
  return { child, output: () => output, exited, ports, accountsFile, stateDir };
}

/** The line where `service` says it is ready. */
function readyLine(output: string, service: string): string | undefined {
  return output.split('\n').find((l) => l.includes(`${service}: `) && / on 127\.0\.0\.1:\d+/.test(l));
}

/** Ctrl-C on the terminal: SIGINT to every process of the group; resolves the milliseconds until npm exits. */
async function pressCtrlC(p: NpmStart): Promise<number> {
  const t0 = performance.now();
  process.kill(-(p.child.pid ?? 0), 'SIGINT');
  await p.exited;
  return Math.round(performance.now() - t0);
}

async function stopped(p: NpmStart | undefined): Promise<void> {
  if (!p) return;
  if (p.child.exitCode === null && p.child.signalCode === null) process.kill(-(p.child.pid ?? 0), 'SIGKILL');
  await rm(p.stateDir, { recursive: true, force: true });
}

const signIn = (gateway: string, headers: Record<string, string> = {}) =>
  fetch(`${gateway}/api/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ username: 'carol', password: PASSWORD }),
  });

describe('issue 38: npm start with GATEWAY_AUTH=jwt', () => {
  let p: NpmStart;
  let gateway: string;

  beforeAll(async () => {
    p = await npmStart({ GATEWAY_AUTH: 'jwt' });
    gateway = `http://127.0.0.1:${p.ports.ports.GATEWAY}`;
  }, STARTUP_MS + 10_000);
  afterAll(() => stopped(p), 30_000);

  it('says where each service listens, one line each, and nothing else at info or above', () => {
    const { ports } = p.ports;
    const expected: Record<string, string> = {
      operator: `operator: xDS on 127.0.0.1:${ports.XDS}, health on 127.0.0.1:${ports.HEALTH}, metrics on 127.0.0.1:${ports.METRICS}`,
      ratelimit: `ratelimit: gRPC on 127.0.0.1:${ports.GRPC}, HTTP on 127.0.0.1:${ports.HTTP}, debug on 127.0.0.1:${ports.DEBUG}`,
      gateway: `gateway: HTTP on 127.0.0.1:${ports.GATEWAY}`,
      inbox: `inbox: HTTP on 127.0.0.1:${ports.INBOX}`,
      orders: `orders: HTTP on 127.0.0.1:${ports.ORDERS} (the example backend`,
    };
    const ready = SERVICES.map((s) => readyLine(p.output(), s));
    expect(ready.map((line, i) => line?.includes(expected[SERVICES[i] ?? ''] ?? '-'))).toEqual(
      SERVICES.map(() => true),
    );
    const logLines = p
      .output()
      .split('\n')
      .filter((l) => l.includes(' level='));
    expect(logLines.filter((l) => !ready.includes(l))).toEqual([]);
  });

  it('signs in with the account hack/create-user.ts made while it runs, no Redis anywhere, and proxies', async () => {
    expect((await signIn(gateway)).status).toBe(401);
    const created = await runHackScript('create-user.ts', ['carol'], {
      PORTCULLIS_PASSWORD: PASSWORD,
      GATEWAY_ACCOUNTS_FILE: p.accountsFile,
    });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('carol saved in');
    const id = created.stdout.trim();

    const answer = await signIn(gateway);
    expect(answer.status).toBe(200);
    const { jwt } = (await answer.json()) as { jwt: string };
    const who = await fetch(`${gateway}/api/test`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(await who.json()).toEqual({ message: 'test successful', user: { id, username: 'carol' } });
    expect((await fetch(`${gateway}/api/test`)).status).toBe(401);

    // the example ApiRoute's proxied route, to the example orders backend npm start runs
    const order = await fetch(`${gateway}/api/v1/orders/1`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(order.status).toBe(200);
    expect(await order.json()).toMatchObject({ id: '1', status: 'shipped' });
  });

  it('stops on Ctrl-C without a warning or an exit line, well under the old 5-6 s', async () => {
    const before = p.output().length;
    const ms = await pressCtrlC(p);
    process.stdout.write(`issue 38: npm start stopped ${ms} ms after Ctrl-C\n`);
    expect(p.output().slice(before).trim()).toBe('');
    expect(ms).toBeLessThan(3000);
    // every service stopped with it: no port is left answering
    for (const port of [
      p.ports.ports.GATEWAY,
      p.ports.ports.INBOX,
      p.ports.ports.HTTP,
      p.ports.ports.ORDERS,
    ]) {
      expect(
        await fetch(`http://127.0.0.1:${port}/`).then(
          () => 'answers',
          () => 'closed',
        ),
      ).toBe('closed');
    }
  });
});

describe('issue 38: npm start with GATEWAY_AUTH=session', () => {
  let p: NpmStart;
  let gateway: string;

  beforeAll(async () => {
    p = await npmStart({ GATEWAY_AUTH: 'session' });
    gateway = `http://127.0.0.1:${p.ports.ports.GATEWAY}`;
  }, STARTUP_MS + 10_000);
  afterAll(() => stopped(p), 30_000);

  it('signs in with a cookie, for an account in the accounts file', async () => {
    const created = await runHackScript('create-user.ts', ['carol'], {
      PORTCULLIS_PASSWORD: PASSWORD,
      GATEWAY_ACCOUNTS_FILE: p.accountsFile,
    });
    expect(created.code).toBe(0);
    const answer = await signIn(gateway);
    expect(await answer.json()).toEqual({ message: 'logged in: carol' });
    const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^portcullis_session=/);
    const who = await fetch(`${gateway}/api/test`, { headers: { cookie } });
    expect(await who.json()).toMatchObject({ user: { username: 'carol' } });
    expect((await fetch(`${gateway}/api/test`)).status).toBe(401);
    expect(await pressCtrlC(p)).toBeLessThan(3000);
  });
});
