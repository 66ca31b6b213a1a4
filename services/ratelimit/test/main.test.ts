import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRuntimeRoot } from './harness.js';

const repo = join(import.meta.dirname, '../../..');
const tsx = join(repo, 'node_modules/.bin/tsx');
const main = join(repo, 'services/ratelimit/src/main.ts');

function run(env: Record<string, string>) {
  const child = spawn(tsx, [main], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the ratelimit process', () => {
  it('stops start-up naming every bad variable', async () => {
    const p = run({ GRPC_PORT: 'eighty', KVSTORE_POOL_SIZE: '0', LOG_FORMAT: 'json' });
    expect(await p.exited).toBe(1);
    const line = JSON.parse(p.output().trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'fatal',
      '@message': 'invalid settings',
      problems: [
        'GRPC_PORT="eighty": expected an integer ≥ 0 ≤ 65535',
        'KVSTORE_POOL_SIZE="0": expected an integer ≥ 1 ≤ 1024',
      ],
    });
  });

  it('serves and exits cleanly on SIGTERM', async () => {
    const { root } = await createRuntimeRoot({ 'a.yaml': 'domain: a\n' });
    const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
    const p = run({
      BACKEND_TYPE: 'memory',
      RUNTIME_ROOT: root,
      RUNTIME_WATCH_ROOT: 'false',
      HOST: '127.0.0.1',
      GRPC_HOST: '127.0.0.1',
      DEBUG_HOST: '127.0.0.1',
      PORT: String(http),
      GRPC_PORT: String(grpc),
      DEBUG_PORT: String(debug),
      LOG_LEVEL: 'info',
    });
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = await fetch(`http://127.0.0.1:${http}/healthcheck`).then(
        (r) => r.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/msg="shutting down" signal=SIGTERM/);
  });
});
