import { mkdir, rename, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';
import { waitUntil } from '@portcullis/testing';

const rule = (domain: string, limit: number) =>
  `domain: ${domain}\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: ${limit}}\n`;

const limitOf = async (h: Harness, domain: string): Promise<number | undefined> => {
  const r = await h.json({
    domain,
    descriptors: [{ entries: [{ key: 'k', value: String(Math.random()) }] }],
  });
  return (r.body as { statuses: Array<{ currentLimit?: { requestsPerUnit: number } }> }).statuses[0]
    ?.currentLimit?.requestsPerUnit;
};

describe('configuration reload from files', () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('reloads on write, create, chmod and remove', async () => {
    h = await startHarness({ 'a.yaml': rule('a', 1) });
    await writeFile(join(h.configDir, 'a.yaml'), rule('a', 2));
    await waitUntil(async () => (await limitOf(h, 'a')) === 2);
    await writeFile(join(h.configDir, 'b.yaml'), rule('b', 3));
    await waitUntil(async () => (await limitOf(h, 'b')) === 3);
    const loads = h.app.stats.counter('config_load_success').value;
    await chmod(join(h.configDir, 'b.yaml'), 0o600);
    await waitUntil(() => Promise.resolve(h.app.stats.counter('config_load_success').value > loads));
    await rm(join(h.configDir, 'b.yaml'));
    await waitUntil(async () => (await limitOf(h, 'b')) === undefined);
  });

  it('keeps the last good configuration when a file turns bad, and counts the error', async () => {
    h = await startHarness({ 'a.yaml': rule('a', 5) });
    await writeFile(
      join(h.configDir, 'a.yaml'),
      'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: fortnight}\n',
    );
    await waitUntil(() => Promise.resolve(h.app.stats.counter('config_load_error').value === 1));
    expect(await limitOf(h, 'a')).toBe(5);
    expect((await h.get('/rlconfig', 'debug')).text).toContain('a.k: unit=HOUR requests_per_unit=5');
    await writeFile(join(h.configDir, 'a.yaml'), rule('a', 6));
    await waitUntil(async () => (await limitOf(h, 'a')) === 6);
  });

  it('rejects a domain defined in two files unless MERGE_DOMAIN_CONFIG', async () => {
    h = await startHarness(
      { 'a.yaml': rule('a', 5), 'b.yaml': rule('a', 6) },
      { FORCE_START_WITHOUT_INITIAL_CONFIG: 'true' },
    );
    const res = await h.json({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'no rate limit configuration loaded', code: 'NO_CONFIG' });
    await h.close();
    h = await startHarness(
      {
        'a.yaml': rule('a', 5),
        'b.yaml': 'domain: a\ndescriptors:\n  - key: j\n    rate_limit: {unit: hour, requests_per_unit: 6}\n',
      },
      { MERGE_DOMAIN_CONFIG: 'true' },
    );
    expect((await h.get('/rlconfig', 'debug')).text).toBe(
      'a.j: unit=HOUR requests_per_unit=6, shadow_mode: false, quota_mode: false\na.k: unit=HOUR requests_per_unit=5, shadow_mode: false, quota_mode: false\n',
    );
  });

  it('ignores dot files when asked', async () => {
    h = await startHarness(
      { 'a.yaml': rule('a', 5), '.b.yaml': rule('b', 1) },
      { RUNTIME_IGNOREDOTFILES: 'true' },
    );
    expect(await limitOf(h, 'b')).toBeUndefined();
    expect(await limitOf(h, 'a')).toBe(5);
  });

  it('follows a symlink swap of the runtime root with RUNTIME_WATCH_ROOT=true', async () => {
    const scratch = await startHarness({ 'unused.yaml': rule('unused', 1) });
    const base = scratch.root;
    await scratch.app.close();
    const v1 = join(base, 'v1');
    const v2 = join(base, 'v2');
    await mkdir(join(v1, 'config'), { recursive: true });
    await mkdir(join(v2, 'config'), { recursive: true });
    await writeFile(join(v1, 'config/r.yaml'), rule('swap', 1));
    await writeFile(join(v2, 'config/r.yaml'), rule('swap', 2));
    await symlink(v1, join(base, 'current'));
    h = await startHarness({}, { RUNTIME_ROOT: join(base, 'current'), RUNTIME_WATCH_ROOT: 'true' });
    expect(await limitOf(h, 'swap')).toBe(1);
    await symlink(v2, join(base, 'next'));
    await rename(join(base, 'next'), join(base, 'current'));
    await waitUntil(async () => (await limitOf(h, 'swap')) === 2);
    await rm(base, { recursive: true, force: true });
  });

  it('never fails a request while the configuration is swapped under load', { timeout: 40_000 }, async () => {
    h = await startHarness({ 'a.yaml': rule('a', 1_000_000) });
    let stop = false;
    const failures: unknown[] = [];
    let answered = 0;
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (!stop) {
          const r = await h.json({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
          if (r.status !== 200) failures.push(r.body);
          answered++;
        }
      }),
    );
    try {
      for (let i = 0; i < 10; i++) {
        await writeFile(join(h.configDir, 'a.yaml'), rule('a', 1_000_000 + i));
        await sleep(60);
      }
      // a bound, not a timing: under the full suite on two cores the last poll can come late
      await waitUntil(async () => (await limitOf(h, 'a')) === 1_000_009, 20_000);
    } finally {
      stop = true;
      await load;
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(10);
    expect(h.app.stats.counter('config_load_success').value).toBeGreaterThan(1);
  });
});
