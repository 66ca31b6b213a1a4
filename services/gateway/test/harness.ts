import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type GatewayApp, type GatewayDeps } from '../src/app.js';
import { loadSettings } from '../src/settings.js';
import { quietLog } from '@portcullis/testing';

export { quietLog };

export interface GatewayHarness {
  app: GatewayApp;
  url: string;
  request(
    method: string,
    path: string,
    init?: { body?: unknown; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<{
    status: number;
    body: unknown;
    headers: Headers;
  }>;
  /** A GET with the path sent exactly as written: `fetch` would resolve dot segments first. */
  requestRaw(path: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

function parseJsonOrText(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return text;
  }
}

/** The gateway on 127.0.0.1 with a free port, a fresh state directory and the given environment. */
export async function startGatewayHarness(
  env: Record<string, string>,
  deps: Partial<GatewayDeps> = {},
): Promise<GatewayHarness> {
  const stateDir = await mkdtemp(join(tmpdir(), 'gateway-test-'));
  const app = await startGateway(
    loadSettings({
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      GATEWAY_STATE_DIR: stateDir,
      GATEWAY_RATELIMIT_URL: '127.0.0.1:1',
      // no ratelimit service here, so the in-process sign-in limits would count every test's sign-ins;
      // test/issue-15-sign-in-caps.test.ts turns them on
      GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: '0',
      GATEWAY_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE: '0',
      ...env,
    }),
    { log: quietLog, ...deps },
  );
  const url = `http://127.0.0.1:${app.port}`;
  return {
    app,
    url,
    async request(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      let body: string | undefined;
      if (init.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(init.form).toString();
      } else if (init.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.body);
      }
      const res = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) });
      return { status: res.status, body: parseJsonOrText(await res.text()), headers: res.headers };
    },
    requestRaw(path) {
      return new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: app.port, path }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: parseJsonOrText(Buffer.concat(chunks).toString()) }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
    async close() {
      await app.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}
