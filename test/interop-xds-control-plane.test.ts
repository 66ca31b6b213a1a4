import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  quietLog as log,
  replaceRuntimeFile,
  startRedis,
  startXdsControlPlane,
  writeXdsConfig,
  type RedisServer,
  type XdsControlPlane,
  type XdsControlPlaneEvent,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRateLimit, type RateLimitApp, loadSettings } from '@portcullis/ratelimit';
import { LOOPBACK_LISTENERS } from '../services/ratelimit/test/harness.js';

/**
 * Our ratelimit in GRPC_XDS_SOTW mode against an xDS server that is not ours (go-control-plane, from
 * hack/peers/xds-control-plane), side by side with one reading the same rules from files: same decisions,
 * ACKs of each new version, NACKs carrying our error text while the last good rules stay.
 */

const NODE_ID = 'interop-ratelimit';

/** The rules as upstream's RateLimitConfig in proto3 JSON, which is also valid YAML for the file. */
function rules(loginPerHour: number): { domain: string; descriptors: unknown[] } {
  return {
    domain: 'interop',
    descriptors: [
      { key: 'user', rate_limit: { unit: 'HOUR', requests_per_unit: 3 } },
      {
        key: 'path',
        value: '/login',
        rate_limit: { unit: 'HOUR', requests_per_unit: loginPerHour },
        descriptors: [{ key: 'user', rate_limit: { unit: 'DAY', requests_per_unit: 1 } }],
      },
      { key: 'path', value: '/static/*', rate_limit: { unlimited: true } },
      { key: 'weekly', rate_limit: { unit: 'WEEK', requests_per_unit: 2 } },
    ],
  };
}

interface Status {
  code: string;
  currentLimit?: { requestsPerUnit?: number; unit?: string };
  limitRemaining?: number;
}

async function ask(app: RateLimitApp, entries: Array<[string, string]>): Promise<Status[]> {
  const r = await fetch(`http://127.0.0.1:${app.ports.http}/json`, {
    method: 'POST',
    body: JSON.stringify({
      domain: 'interop',
      descriptors: [{ entries: entries.map(([key, value]) => ({ key, value })) }],
    }),
  });
  const body = (await r.json()) as { statuses?: Status[] };
  // the time to the reset is left out: a second may pass between the two services' answers
  return (body.statuses ?? []).map((s) => ({
    code: s.code,
    ...(s.currentLimit ? { currentLimit: s.currentLimit } : {}),
    limitRemaining: s.limitRemaining ?? 0,
  }));
}

const SEQUENCE: Array<Array<[string, string]>> = [
  [['user', 'ann']],
  [['user', 'ann']],
  [['user', 'bob']],
  [['user', 'ann']],
  [['user', 'ann']],
  [['path', '/login']],
  [
    ['path', '/login'],
    ['user', 'ann'],
  ],
  [
    ['path', '/login'],
    ['user', 'ann'],
  ],
  [['path', '/login']],
  [['path', '/login']],
  [['path', '/static/app.js']],
  [['path', '/elsewhere']],
  [['weekly', 'x']],
  [['weekly', 'x']],
  [['weekly', 'x']],
];

describe('our ratelimit and a go-control-plane xDS server', () => {
  let dir: string;
  let redis: RedisServer;
  let controlPlane: XdsControlPlane;
  let fromFiles: RateLimitApp;
  let fromXds: RateLimitApp;

  const start = (env: Record<string, string>): Promise<RateLimitApp> =>
    startRateLimit(
      loadSettings({
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        ...LOOPBACK_LISTENERS,
        ...env,
      }),
      { log },
    );
  const isOurs = (msg: string) => (e: XdsControlPlaneEvent) => e.msg === msg && e.node === NODE_ID;
  /** The version the control plane sets for the file it reads now. */
  const nextSnapshot = (from: number): Promise<XdsControlPlaneEvent> =>
    controlPlane.waitForEvent((e) => e.msg === 'snapshot set', { from });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'interop-xds-'));
    redis = await startRedis();
    await mkdir(join(dir, 'config'));
    await replaceRuntimeFile(dir, 'interop.yaml', JSON.stringify(rules(4)));
    await writeXdsConfig(join(dir, 'xds.json'), [{ name: 'interop', ...rules(4) }]);
    controlPlane = await startXdsControlPlane({ configPath: join(dir, 'xds.json') });
    fromXds = await start({
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: controlPlane.address,
      CONFIG_GRPC_XDS_NODE_ID: NODE_ID,
      CACHE_KEY_PREFIX: 'xds_',
    });
    fromFiles = await start({
      RUNTIME_ROOT: dir,
      RUNTIME_SUBDIRECTORY: '',
      RUNTIME_APPDIRECTORY: 'config',
      CACHE_KEY_PREFIX: 'files_',
    });
  }, 60_000);
  afterAll(async () => {
    await fromFiles.close();
    await fromXds.close();
    await controlPlane.stop();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same decisions as the same rules from a file, and ACKed the version it applied', async () => {
    const first = await controlPlane.waitForEvent(isOurs('ack'));
    const snapshot = await nextSnapshot(0);
    expect(first.version).toBe(snapshot.version);
    for (const entries of SEQUENCE) {
      const [viaXds, viaFile] = [await ask(fromXds, entries), await ask(fromFiles, entries)];
      expect({ entries, statuses: viaXds }).toEqual({ entries, statuses: viaFile });
    }
    expect((await ask(fromXds, [['user', 'ann']]))[0]?.code).toBe('OVER_LIMIT');
  });

  it('follows an edit of the file and ACKs the new version', async () => {
    const from = controlPlane.events().length;
    await controlPlane.writeConfig([{ name: 'interop', ...rules(10) }]);
    const snapshot = await nextSnapshot(from);
    await controlPlane.waitForEvent((e) => isOurs('ack')(e) && e.version === snapshot.version, { from });
    const [status] = await ask(fromXds, [['path', '/login']]);
    expect(status?.currentLimit?.requestsPerUnit).toBe(10);
  });

  let loginPerHour = 10;
  it.each([
    {
      problem: 'a domain in two resources',
      configs: [
        { name: 'interop', ...rules(10) },
        { name: 'again', ...rules(20) },
      ],
      // resources are loaded by name, whatever order go-control-plane sends them in (its snapshot is a map)
      error: "interop: duplicate domain 'interop' in config file (also in again)",
    },
    {
      // protojson takes an enum by number, so go-control-plane passes a unit it has no name for
      problem: 'a unit upstream has no name for',
      configs: [
        { name: 'interop', ...rules(10) },
        {
          name: 'numbered',
          domain: 'numbered',
          descriptors: [{ key: 'k', rate_limit: { unit: 9, requests_per_unit: 1 } }],
        },
      ],
      error: "numbered: descriptors[0].rate_limit.unit: invalid rate limit unit '9'",
    },
  ])('NACKs $problem with its error text and keeps the last good rules', async ({ configs, error }) => {
    const from = controlPlane.events().length;
    await controlPlane.writeConfig(configs);
    const rejected = await nextSnapshot(from);
    const nack = await controlPlane.waitForEvent(isOurs('nack'), { from });
    const [status] = await ask(fromXds, [['path', '/login']]);
    // go-control-plane sends the rejected snapshot again after every NACK, until another one replaces it;
    // it has to be new: the version the client reports is the last good one, which go-control-plane never
    // answers with
    const restoredFrom = controlPlane.events().length;
    await controlPlane.writeConfig([{ name: 'interop', ...rules(++loginPerHour) }]);
    const restored = await nextSnapshot(restoredFrom);
    await controlPlane.waitForEvent((e) => isOurs('ack')(e) && e.version === restored.version, {
      from: restoredFrom,
    });
    expect(nack.error).toContain(error);
    expect(nack.version).not.toBe(rejected.version);
    expect(nack.version).not.toBe('');
    expect(status?.currentLimit?.requestsPerUnit).toBe(loginPerHour - 1);
  });
});
