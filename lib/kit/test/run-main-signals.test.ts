import { join } from 'node:path';
import { spawnLogged, waitUntil, type LoggedProcess } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, 'fixtures/slow-start-main.ts');

describe('runMain: a signal while the service starts', () => {
  let p: LoggedProcess | undefined;
  afterEach(() => p?.stop(1_000));

  const startSlowly = async (startMs: number): Promise<LoggedProcess> => {
    const child = spawnLogged(process.execPath, ['--import', 'tsx', MAIN], { START_MS: String(startMs) });
    await waitUntil(() => child.output().includes('starting\n'), 30_000);
    return child;
  };

  it('is held until the start ends, then the service closes and exits 0', async () => {
    p = await startSlowly(1_500);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output().match(/^(starting|started|closed)$/gm)).toEqual(['starting', 'started', 'closed']);
    expect(p.output()).toContain('stopping once started');
  });

  it('exits at once, 1, on a second signal, without waiting for the start', async () => {
    p = await startSlowly(60_000);
    p.child.kill('SIGINT');
    await waitUntil(() => p?.output().includes('stopping once started') ?? false, 10_000);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(1);
    expect(p.output()).not.toContain('started\n');
  });
});
