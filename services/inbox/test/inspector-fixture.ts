import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedis, type RedisServer } from '@portcullis/testing';
import type { Browser } from 'playwright-core';
import { buildInspector } from '../src/web/build-inspector.js';
import { launchChromium } from './browser.js';
import { startInboxHarness, type InboxHarness } from './harness.js';

/** Where the browser tests leave their screenshots. */
export const ARTIFACTS = join(import.meta.dirname, '../../../test-artifacts/inbox');

export interface InspectorFixture {
  h: InboxHarness;
  /** The inbox's address, also its public URL. */
  base: string;
  browser: Browser;
  /** The built page, for a test's own second inbox. */
  webDir: string;
  /** Closes the browser, the inbox and its Redis, and removes the built page. */
  close: () => Promise<void>;
}

/**
 * The built inspector served by a real inbox on a fresh Redis (or on the memory store, where the inbox
 * forwards itself), and headless Chromium to open it; `env` adds to the inbox's environment.
 */
export async function startInspectorFixture(
  env?: Record<string, string>,
): Promise<InspectorFixture & { redis: RedisServer }>;
export async function startInspectorFixture(
  env: Record<string, string>,
  store: 'memory',
): Promise<InspectorFixture>;
export async function startInspectorFixture(
  env: Record<string, string> = {},
  store: 'memory' | 'redis' = 'redis',
): Promise<InspectorFixture & { redis?: RedisServer }> {
  const redis = store === 'redis' ? await startRedis() : undefined;
  const webDir = await mkdtemp(join(tmpdir(), 'inbox-web-'));
  await buildInspector(webDir);
  await mkdir(ARTIFACTS, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const h = await startInboxHarness({
    INBOX_PORT: String(port),
    INBOX_PUBLIC_URL: base,
    ...(redis ? { REDIS_URL: `redis://${redis.address}` } : {}),
    INBOX_WEB_DIR: webDir,
    ...env,
  });
  const browser = await launchChromium();
  return {
    ...(redis ? { redis } : {}),
    h,
    base,
    browser,
    webDir,
    close: async () => {
      await browser.close();
      await h.close();
      await redis?.stop();
      await rm(webDir, { recursive: true, force: true });
    },
  };
}
