import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import type { InboxHarness } from './harness.js';
import { startInspectorFixture } from './inspector-fixture.js';

// The inspector's search in headless Chromium against a real inbox on Redis: the filter in the address (a
// shared link, a reload), live captures filtered, and the HAR download.

const WAIT_MS = 10_000;

interface PageGlobals {
  localStorage: { setItem(key: string, value: string): void };
}

describe('inspector search and HAR export in Chromium', () => {
  let h: InboxHarness;
  let base: string;
  let close: () => Promise<void>;
  let watched: WatchedPage;
  let ep: { id: string; token: string; receiveUrl: string; name: string };

  beforeAll(async () => {
    let browser: Browser;
    ({ h, base, browser, close } = await startInspectorFixture());
    ep = await h.createEndpoint('searched');
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    // the browser that created the endpoint remembers its token
    await context.addInitScript(
      (value) => {
        (globalThis as unknown as PageGlobals).localStorage.setItem('portcullis.inbox.endpoints', value);
      },
      JSON.stringify([ep]),
    );
    watched = await openWatchedPage(context);
  }, 60_000);
  afterAll(async () => {
    expect(watched.problems).toEqual([]);
    await close();
  });

  const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');
  const paths = async (page: Page): Promise<string[]> =>
    (await rows(page).locator('.path').allTextContents()).map((t) => t.trim());
  const send = (path: string, body: string, type = 'application/json') =>
    h.send('POST', `/api/hook/${ep.id}${path}`, { body, headers: { 'content-type': type } });

  it('shows only what the filter in the address matches, keeps it on reload, and filters live captures', async () => {
    await send('/orders/1', '{"status":"refunded"}');
    await send('/orders/2', '{"status":"paid"}');
    await send('/users/1', '{"status":"refunded"}');
    const page = watched.page;
    await page.goto(`${base}/inspect/${ep.id}?path=${encodeURIComponent('/orders/*')}&q=refunded`);
    await rows(page).first().waitFor({ timeout: WAIT_MS });
    expect(await paths(page)).toEqual(['/orders/1']);
    expect(await page.getByLabel('Path').inputValue()).toBe('/orders/*');
    expect(await page.getByLabel('Body text').inputValue()).toBe('refunded');

    await page.reload();
    await page.locator('.live-live').waitFor({ timeout: WAIT_MS });
    expect(await paths(page)).toEqual(['/orders/1']);

    // live: a capture the filter refuses is not added, one it matches is
    await send('/orders/3', '{"status":"paid"}');
    await send('/orders/4', 'REFUNDED in full', 'text/plain');
    await rows(page).filter({ hasText: '/orders/4' }).waitFor({ timeout: WAIT_MS });
    expect(await paths(page)).toEqual(['/orders/4', '/orders/1']);

    // the bar changes the address; Clear shows everything
    await page.getByLabel('Path').fill('/users/*');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/path=%2Fusers%2F\*/);
    await rows(page).filter({ hasText: '/users/1' }).waitFor({ timeout: WAIT_MS });
    expect(await paths(page)).toEqual(['/users/1']);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL(`${base}/inspect/${ep.id}`);
    await rows(page).nth(4).waitFor({ timeout: WAIT_MS });
    expect(await paths(page)).toHaveLength(5);
  });

  it('shows the problems of a filter that does not parse', async () => {
    const page = watched.page;
    await page.goto(`${base}/inspect/${ep.id}?forwarding=lost`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'forwarding: expected one of delivered, retrying, dead, none' })
      .waitFor({ timeout: WAIT_MS });
    expect(await rows(page).count()).toBe(0);
  });

  it('downloads the filtered captures as a HAR file', async () => {
    const page = watched.page;
    await page.goto(`${base}/inspect/${ep.id}?path=${encodeURIComponent('/orders/*')}`);
    await rows(page).nth(3).waitFor({ timeout: WAIT_MS });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export HAR' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${ep.id}.har`);
    const har = JSON.parse(await readFile(await download.path(), 'utf8')) as {
      log: { version: string; entries: Array<{ request: { url: string; postData?: { text: string } } }> };
    };
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((e) => e.request.url)).toEqual(
      [4, 3, 2, 1].map((n) => `${base}/api/hook/${ep.id}/orders/${n}`),
    );
    expect(har.log.entries[0]?.request.postData?.text).toBe('REFUNDED in full');
  });
});
