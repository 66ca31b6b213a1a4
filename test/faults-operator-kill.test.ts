import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, quietLog as log, spawnLogged, waitUntil, type LoggedProcess } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayApp, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import type { RateLimitApp } from '@portcullis/ratelimit';
import { directoryOperatorEnv } from '../operator/test/directory-operator.js';
import { startXdsRateLimit } from '../services/ratelimit/test/xds-rate-limit.js';

const OPERATOR_MAIN = join(import.meta.dirname, '../operator/src/main.ts');

const rateLimitConfig = (rpu: number): string => `apiVersion: portcullis.dev/v1alpha1
kind: RateLimitConfig
metadata: {name: web, namespace: demo}
spec:
  domain: web
  descriptors:
    - key: user
      rate_limit: {unit: hour, requests_per_unit: ${rpu}}
`;
const apiRoute = (paths: readonly string[]): string => `apiVersion: portcullis.dev/v1alpha1
kind: ApiRoute
metadata: {name: probes, namespace: demo}
spec:
  routes:
${paths.map((p) => `    - {name: ${p}, method: GET, path: ${p}, auth: false, handler: Example.ping}`).join('\n')}
`;

/**
 * The operator as its own process (directory source, the same path as kubernetes after the source),
 * SIGKILLed while the ratelimit service and the gateway run on its config: they keep answering from the
 * last config they accepted, and take a new operator's (on the same xDS port) without a restart.
 */
describe('operator SIGKILLed under running services', () => {
  let dir: string;
  let xdsPort: number;
  let ratelimit: RateLimitApp;
  let gateway: GatewayApp;
  let stateDir: string;
  const operators: LoggedProcess[] = [];

  const startOperatorProcess = async (): Promise<LoggedProcess> => {
    const p = spawnLogged(
      process.execPath,
      ['--import', 'tsx', OPERATOR_MAIN],
      directoryOperatorEnv(dir, {
        XDS_PORT: String(xdsPort),
        HEALTH_PORT: String(await freePort()),
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
      }),
    );
    operators.push(p);
    return p;
  };
  /** The limit the ratelimit service applies to domain `web`, asked over its HTTP `/json`. */
  const limitOfWeb = async (): Promise<number | undefined> => {
    const r = await fetch(`http://127.0.0.1:${ratelimit.ports.http}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ domain: 'web', descriptors: [{ entries: [{ key: 'user', value: 'probe' }] }] }),
    });
    const json = (await r.json()) as { statuses?: Array<{ currentLimit?: { requestsPerUnit?: number } }> };
    return json.statuses?.[0]?.currentLimit?.requestsPerUnit;
  };
  const gatewayStatus = async (path: string): Promise<number> =>
    (await fetch(`http://127.0.0.1:${gateway.port}/api/${path}`)).status;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operator-kill-'));
    stateDir = await mkdtemp(join(tmpdir(), 'operator-kill-gateway-'));
    await writeFile(join(dir, 'web.yaml'), rateLimitConfig(3));
    await writeFile(join(dir, 'routes.yaml'), apiRoute(['ping']));
    xdsPort = await freePort();
    await startOperatorProcess();
    ratelimit = await startXdsRateLimit(`127.0.0.1:${xdsPort}`, {
      env: { CONFIG_GRPC_XDS_NODE_ID: 'ratelimit-0' },
    });
    gateway = await startGateway(
      loadGatewaySettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GATEWAY_STATE_DIR: stateDir,
        GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
        GATEWAY_XDS_RETRY_INTERVAL: '100ms',
        GATEWAY_RATELIMIT_URL: `127.0.0.1:${ratelimit.ports.grpc}`,
      }),
      { log },
    );
  }, 60_000);
  afterAll(async () => {
    for (const p of operators) await p.stop(2000);
    await gateway.close();
    await ratelimit.close();
    await rm(dir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  it(
    'keeps the last good config while no operator runs, and resyncs from a new one',
    { timeout: 60_000 },
    async () => {
      await waitUntil(
        async () => (await limitOfWeb()) === 3 && (await gatewayStatus('ping')) === 200,
        30_000,
      );
      const first = operators[0];
      first?.child.kill('SIGKILL');
      expect(await first?.exited).toBeNull();

      // changed while no operator runs: nothing may reach the services, and they keep what they had
      await writeFile(join(dir, 'web.yaml'), rateLimitConfig(7));
      await writeFile(join(dir, 'routes.yaml'), apiRoute(['ping', 'pong']));
      for (let i = 0; i < 10; i++) {
        expect(await limitOfWeb()).toBe(3);
        expect(await gatewayStatus('ping')).toBe(200);
        expect(await gatewayStatus('pong')).toBe(404);
        await sleep(300); // a few of the services' 100 ms reconnection attempts
      }

      await startOperatorProcess();
      await waitUntil(
        async () => (await limitOfWeb()) === 7 && (await gatewayStatus('pong')) === 200,
        30_000,
      );
      expect(await gatewayStatus('ping')).toBe(200);
    },
  );
});
