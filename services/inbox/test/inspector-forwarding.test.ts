import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Running } from '@portcullis/kit';
import type { RedisServer } from '@portcullis/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import { startWorker } from '../src/worker/worker-app.js';
import { openWatchedPage } from './browser.js';
import { ADMIN_TOKEN, forwardTarget, quietLog, type InboxHarness } from './harness.js';
import { startInspectorFixture } from './inspector-fixture.js';

// A row's forwarding outcome in the inspector as the worker (its own app, on the same Redis) records it.

const WAIT_MS = 10_000;

/** The page globals touched: this file is type-checked without the DOM library. */
interface PageGlobals {
  marker?: number;
  localStorage: { setItem(key: string, value: string): void };
}

describe('web inspector in Chromium: live forwarding outcomes', () => {
  let h: InboxHarness;
  let worker: Running;
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  // the target answers 503 to the first request and holds the second until released, then answers 200
  const held: ServerResponse[] = [];
  let received = 0;
  const target = createServer((req, res) => {
    req.resume();
    req.on('end', () => (++received === 1 ? res.writeHead(503).end() : held.push(res)));
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    let redis: RedisServer;
    ({ redis, h, base, browser, close } = await startInspectorFixture({
      INBOX_EGRESS_ALLOW_PRIVATE: 'true',
    }));
    worker = await startWorker(
      loadSettings({
        REDIS_URL: `redis://${redis.address}`,
        INBOX_EGRESS_ALLOW_PRIVATE: 'true',
        INBOX_HOST: '127.0.0.1',
        INBOX_WORKER_PORT: '0',
        INBOX_WORKER_NAME: 'browser',
        INBOX_WORKER_POLL_INTERVAL: '100ms',
      }),
      { log: quietLog },
    );
  }, 60_000);
  afterAll(async () => {
    for (const res of held.splice(0)) res.writeHead(200).end();
    target.closeAllConnections();
    target.close();
    await worker.close();
    await close();
  });

  it("changes a row's badge and the open detail from retrying to delivered without a reload", async () => {
    const id = 'browser-fwd-0123456789abcdef';
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    await h.app.store.syncManagedEndpoints([
      {
        id,
        name: 'forwarded',
        resource: 'default/forwarded',
        retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
        forward: [forwardTarget(url, { maxAttempts: 3 })],
      },
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await openWatchedPage(context);
    const remembered = JSON.stringify([{ id, token: ADMIN_TOKEN, name: 'forwarded', receiveUrl: '' }]);
    await page.addInitScript((value) => {
      (globalThis as unknown as PageGlobals).localStorage.setItem('portcullis.inbox.endpoints', value);
    }, remembered);
    await page.goto(`${base}/inspect/${id}`);
    await page.locator('.live-live').waitFor({ timeout: WAIT_MS });
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 1));

    await h.send('POST', `/api/hook/${id}/orders`, { body: '{}' });
    const row = page
      .getByRole('listbox', { name: /Captured requests/ })
      .getByRole('option')
      .first();
    await row.locator('.fwd-retrying', { hasText: 'retrying 503' }).waitFor({ timeout: WAIT_MS });
    await row.click();
    await page.getByRole('tab', { name: 'Forwarding' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByRole('cell', { name: 'retrying' }).waitFor({ timeout: WAIT_MS });

    await expect.poll(() => held.length, { timeout: WAIT_MS }).toBe(1);
    for (const res of held.splice(0)) res.writeHead(200).end();
    await row.locator('.fwd-delivered', { hasText: 'delivered 200' }).waitFor({ timeout: WAIT_MS });
    await panel.getByRole('cell', { name: 'delivered' }).waitFor({ timeout: WAIT_MS });
    expect(await panel.locator('tbody tr').count()).toBe(2);
    // no reload: the page's global survived
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker)).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
