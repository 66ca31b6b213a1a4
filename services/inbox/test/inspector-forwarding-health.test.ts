import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage } from './browser.js';
import { ADMIN_TOKEN, forwardTarget, type InboxHarness } from './harness.js';
import { ARTIFACTS, startInspectorFixture } from './inspector-fixture.js';

// The inspector's forwarding panel in headless Chromium, on the memory store (the inbox forwards itself):
// a target that fails opens its circuit, the panel says so and lists the dead letters, and its buttons
// redrive them once the target is back.

const WAIT_MS = 15_000;
const ID = 'fwd-panel-0123456789abcdef';

interface PageGlobals {
  localStorage: { setItem(key: string, value: string): void };
}

describe('inspector: circuits and dead letters in Chromium', () => {
  let h: InboxHarness;
  let browser: Browser;
  let close: () => Promise<void>;
  let target: Server;
  let targetUrl: string;
  let up = false;
  const received: Array<{ url: string; status: number }> = [];

  beforeAll(async () => {
    target = createServer((req, res) => {
      req.resume();
      const status = up ? 200 : 503;
      received.push({ url: req.url ?? '', status });
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    ({ h, browser, close } = await startInspectorFixture(
      {
        INBOX_EGRESS_ALLOW_PRIVATE: 'true',
        INBOX_WORKER_CLAIM_IDLE: '300ms',
        INBOX_WORKER_POLL_INTERVAL: '100ms',
        INBOX_WORKER_BREAKER_FAILURES: '2',
        INBOX_WORKER_BREAKER_COOLDOWN: '4s',
      },
      'memory',
    ));
  }, 60_000);
  afterAll(async () => {
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
    await close();
  });

  it('shows the open circuit and the dead letters, and redrives one, then all', async () => {
    await h.app.store.syncManagedEndpoints([
      {
        id: ID,
        name: 'orders',
        resource: 'default/orders',
        retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
        forward: [forwardTarget(targetUrl, { timeoutSeconds: 5, maxAttempts: 1, maxConcurrent: 1 })],
      },
    ]);
    for (const path of ['/a', '/b']) await h.send('POST', `/api/hook/${ID}${path}`, { body: '{}' });

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const { page, problems } = await openWatchedPage(context);
    // the admin token opens a managed endpoint
    const remembered = JSON.stringify([{ id: ID, token: ADMIN_TOKEN, name: 'orders', receiveUrl: '' }]);
    await page.addInitScript((value) => {
      (globalThis as unknown as PageGlobals).localStorage.setItem('portcullis.inbox.endpoints', value);
    }, remembered);
    await page.goto(`${h.url}/inspect/${ID}`);
    const panel = page.getByRole('region', { name: 'Forwarding' });
    // two failures: both captures dead (one attempt each), and the circuit open
    await panel
      .getByText(new RegExp(`target ${targetUrl} \\(.+\\): circuit open until .+, 2 failures`))
      .waitFor({ timeout: WAIT_MS });
    const redriveButtons = panel.getByRole('button', { name: /^Redrive \S+ to / });
    await expect.poll(() => redriveButtons.count(), { timeout: WAIT_MS }).toBe(2);
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-forwarding-health.png') });
    expect(received.map((r) => r.status)).toEqual([503, 503]);

    up = true;
    await redriveButtons.last().click();
    await panel.getByText(/^Redriven /).waitFor({ timeout: WAIT_MS });
    await expect.poll(() => redriveButtons.count(), { timeout: WAIT_MS }).toBe(1);
    await panel.getByRole('button', { name: 'Redrive all' }).click();
    await panel.getByText('Redriven: 1').waitFor({ timeout: WAIT_MS });
    await panel.getByText(/^None: /).waitFor({ timeout: WAIT_MS });
    // the redriven captures waited for the circuit's probe, then went once each; the panel says it closed
    await expect.poll(() => received.length, { timeout: WAIT_MS }).toBe(4);
    expect(received.map((r) => r.status)).toEqual([503, 503, 200, 200]);
    expect(
      received
        .slice(2)
        .map((r) => r.url)
        .sort(),
    ).toEqual(['/a', '/b']);
    await expect.poll(() => panel.getByText(/circuit/).count(), { timeout: WAIT_MS }).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
