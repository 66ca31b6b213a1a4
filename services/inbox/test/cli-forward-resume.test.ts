import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

// `inbox forward` across a laptop's sleep, simulated honestly: the CLI process is stopped (SIGSTOP) while
// captures arrive, then continued; across an inbox restart meanwhile; and across a restart of the CLI.

const BIN = fileURLToPath(new URL('../bin/inbox.mjs', import.meta.url));
/** Longer than the CLI's suspension threshold (5 s): a suspension it must notice. */
const SLEEP_MS = 6500;
const WAIT_MS = 20_000;

function startForward(args: string[], configPath: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, INBOX_CONFIG: configPath };
  delete env.INBOX_URL;
  delete env.INBOX_TOKEN;
  const child = spawn(process.execPath, [BIN, 'forward', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGCONT');
      child.kill('SIGINT');
      await exited;
    },
  };
}

describe('inbox forward keeps no capture back across a sleep', () => {
  let redis: RedisServer;
  let configDir: string;
  const paths: string[] = [];
  const target = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      paths.push(req.url ?? '');
      res.writeHead(200).end();
    });
  });

  beforeAll(async () => {
    redis = await startRedis();
    configDir = await mkdtemp(join(tmpdir(), 'inbox-cli-resume-'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    target.closeAllConnections();
    target.close();
    await redis.stop();
    await rm(configDir, { recursive: true, force: true });
  });

  it('catches up after SIGSTOP/SIGCONT, an inbox restart meanwhile, and a restart with --endpoint: each capture once, in order', async () => {
    const env = { REDIS_URL: `redis://${redis.address}`, INBOX_PORT: String(await freePort()) };
    let inbox: InboxHarness = await startInboxHarness(env);
    const to = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const configPath = join(configDir, 'inbox.json');
    let cli = startForward(['--to', to, '--host', inbox.url], configPath);
    try {
      await waitUntil(() => cli.stdout().includes('Waiting for requests'), WAIT_MS);
      const id = /Endpoint (\S+)/.exec(cli.stdout())?.[1] ?? '';
      const send = async (n: number): Promise<void> => {
        const r = await inbox.send('POST', `/api/hook/${id}/${n}`, { body: String(n) });
        expect(r.status).toBe(200);
      };
      const expected = (to: number): string[] => Array.from({ length: to + 1 }, (_, n) => `/${n}`);

      await send(0);
      await waitUntil(() => paths.length === 1, WAIT_MS);

      // asleep while captures arrive; the inbox keeps the connection
      cli.child.kill('SIGSTOP');
      for (const n of [1, 2, 3]) await send(n);
      await sleep(SLEEP_MS);
      cli.child.kill('SIGCONT');
      await waitUntil(() => cli.stdout().includes('caught up on 3 captures after'), WAIT_MS);
      await send(4);
      await waitUntil(() => paths.length === 5, WAIT_MS);
      expect(paths).toEqual(expected(4));

      // asleep while the inbox restarts: the connection it had is gone
      cli.child.kill('SIGSTOP');
      await inbox.close();
      inbox = await startInboxHarness(env);
      for (const n of [5, 6]) await send(n);
      await sleep(SLEEP_MS);
      cli.child.kill('SIGCONT');
      await waitUntil(() => cli.stdout().includes('caught up on 2 captures after'), WAIT_MS);
      await send(7);
      await waitUntil(() => paths.length === 8, WAIT_MS);
      expect(paths).toEqual(expected(7));

      // stopped, then started again on the same endpoint: it resumes after the last capture it sent
      await cli.stop();
      for (const n of [8, 9]) await send(n);
      cli = startForward(['--to', to, '--endpoint', id], configPath);
      await waitUntil(() => cli.stdout().includes('caught up on 2 captures after'), WAIT_MS);
      await send(10);
      await waitUntil(() => paths.length === 11, WAIT_MS);
      expect(paths).toEqual(expected(10));
      expect(cli.stdout()).toMatch(/^Resuming after \d+-\d+$/m);
      expect(cli.stdout()).toMatch(/^caught up on 2 captures after \d+(ms|s)$/m);
    } finally {
      await cli.stop();
      await inbox.close();
    }
  }, 90_000);
});
