import { join } from 'node:path';
import { freePort } from '@portcullis/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import { ADMIN_TOKEN, startInboxHarness, type InboxHarness } from './harness.js';
import { ARTIFACTS, startInspectorFixture } from './inspector-fixture.js';

// Share links and the admin view in headless Chromium against a real inbox on Redis. Screenshots land in
// test-artifacts/inbox/.

const WAIT_MS = 10_000;

/** The page globals the tests touch (this file is type-checked for Node, without the DOM library). */
interface PageGlobals {
  sessionStorage: { getItem(key: string): string | null };
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
  ): Promise<{
    status: number;
    json(): Promise<unknown>;
  }>;
}

describe('share links and the admin view in Chromium', () => {
  let h: InboxHarness;
  let base: string;
  let browser: Browser;
  let webDir: string;
  let close: () => Promise<void>;
  const watched: WatchedPage[] = [];

  beforeAll(async () => {
    ({ h, base, browser, webDir, close } = await startInspectorFixture());
  }, 60_000);
  afterAll(() => close());
  afterEach(() => {
    const problems = watched.splice(0).flatMap((w) => w.problems);
    expect(problems).toEqual([]);
  });

  const newContext = async (): Promise<BrowserContext> =>
    browser.newContext({ viewport: { width: 1280, height: 800 } });
  const newPage = async (context?: BrowserContext): Promise<Page> => {
    const w = await openWatchedPage(context ?? (await newContext()));
    watched.push(w);
    return w.page;
  };
  const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');

  it('opens a share link read-only and live; the server refuses the page a write; revoking stops it', async () => {
    // the owner makes an endpoint and a share link in the page
    const owner = await newPage();
    await owner.goto(`${base}/`);
    await owner.locator('main.landing').getByRole('button', { name: 'New endpoint' }).click();
    await owner.waitForURL(/\/inspect\//);
    const id = /\/inspect\/([A-Za-z0-9_-]+)$/.exec(owner.url())?.[1] ?? '';
    await owner.getByRole('button', { name: 'Share' }).click();
    await owner.getByRole('button', { name: 'Create read-only link' }).click();
    const url = await owner.getByLabel('New link (shown once)').inputValue();
    expect(url).toMatch(new RegExp(`^${base}/inspect/${id}#share=[A-Za-z0-9_-]{43}$`));
    const shareToken = url.split('#share=')[1] ?? '';
    await h.send('POST', `/api/hook/${id}/first`, { body: '{"n":1}' });

    // whoever has the link: another browser, nothing remembered
    const viewer = await newPage();
    const sentUrls: string[] = [];
    viewer.on('request', (r) => sentUrls.push(r.url()));
    const response = await viewer.goto(url);
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    await rows(viewer).first().waitFor({ timeout: WAIT_MS });
    await viewer.locator('.live-live').waitFor({ timeout: WAIT_MS });
    await expect.poll(() => viewer.getByText('read-only link').isVisible()).toBe(true);
    await viewer.getByRole('button', { name: 'Copy as cURL' }).waitFor({ timeout: WAIT_MS });
    for (const name of ['Rename', 'Share', 'Replay']) {
      expect(await viewer.getByRole('button', { name, exact: true }).count()).toBe(0);
    }
    expect(await viewer.getByLabel('Replay to').count()).toBe(0);
    await h.send('POST', `/api/hook/${id}/second`, { body: '{"n":2}' });
    await rows(viewer).nth(1).waitFor({ timeout: WAIT_MS });
    await viewer.screenshot({ path: join(ARTIFACTS, 'inspector-share-link.png') });
    // the fragment never left the browser
    expect(sentUrls.filter((u) => u.includes(shareToken))).toEqual([]);

    // a forged write from the share page's own context: refused by the server
    const forged = await viewer.evaluate(
      async ({ endpointId, token }) => {
        const g = globalThis as unknown as PageGlobals;
        const authorization = `Bearer ${token}`;
        const answers = [];
        for (const [method, path, body] of [
          ['PATCH', '', { name: 'taken over' }],
          ['DELETE', '', undefined],
          ['POST', '/shares', undefined],
        ] as const) {
          const r = await g.fetch(`/api/endpoints/${endpointId}${path}`, {
            method,
            ...(body === undefined
              ? { headers: { authorization } }
              : {
                  headers: { authorization, 'content-type': 'application/json' },
                  body: JSON.stringify(body),
                }),
          });
          answers.push({ status: r.status, body: await r.json() });
        }
        return answers;
      },
      { endpointId: id, token: shareToken },
    );
    for (const answer of forged) {
      expect(answer).toMatchObject({ status: 403, body: { code: 'SHARE_READ_ONLY' } });
    }
    const still = await h.api('GET', `/api/endpoints/${id}`, { token: ADMIN_TOKEN });
    expect(still.json).toMatchObject({ id, name: '', requestCount: 2 });

    // the owner revokes it: the viewer's live stream stops
    await owner.getByRole('button', { name: /^Revoke link/ }).click();
    await viewer.locator('.live-closed').waitFor({ timeout: WAIT_MS });
    expect(await viewer.locator('.live-closed').getAttribute('title')).toBe('share link revoked');
    await viewer.reload();
    await viewer.getByText('This share link is not valid').waitFor({ timeout: WAIT_MS });
  });

  it('lists the managed endpoints to the admin token, kept in sessionStorage only, and opens them', async () => {
    const endpointId = 'browser-admin-view-orders-1';
    await h.app.store.syncManagedEndpoints([
      {
        id: endpointId,
        name: 'orders',
        resource: 'shop/orders',
        retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
        forward: [],
      },
    ]);
    await h.send('POST', `/api/hook/${endpointId}/paid`, { body: 'x' });
    const context = await newContext();
    const page = await newPage(context);
    await page.goto(`${base}/admin`);
    const field = page.getByLabel('Admin token');
    await field.fill('not-the-admin-token-0123456789abcdef');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('Wrong admin token.').waitFor({ timeout: WAIT_MS });
    await field.fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    const row = page.getByRole('row', { name: /shop\/orders/ });
    await row.waitFor({ timeout: WAIT_MS });
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'orders',
      'shop/orders',
      'none',
      '1',
      expect.any(String) as unknown,
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-admin.png') });
    const kept = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).sessionStorage.getItem('portcullis.inbox.admin-token'),
    );
    expect(kept).toBe(ADMIN_TOKEN);
    expect(await context.cookies()).toEqual([]);
    await row.getByRole('link', { name: 'orders' }).click();
    await page.waitForURL(`${base}/inspect/${endpointId}`);
    await rows(page).first().waitFor({ timeout: WAIT_MS });
    expect(await page.locator('.endpoint-name').textContent()).toBe('orders');
  });

  it('says the admin view is disabled when the inbox has no admin token', async () => {
    const port = await freePort();
    const off = await startInboxHarness({
      INBOX_PORT: String(port),
      INBOX_PUBLIC_URL: `http://127.0.0.1:${port}`,
      INBOX_WEB_DIR: webDir,
      INBOX_ADMIN_TOKEN: '',
    });
    try {
      const page = await newPage();
      await page.goto(`http://127.0.0.1:${port}/admin`);
      await page.getByText('The admin view is disabled').waitFor({ timeout: WAIT_MS });
      expect(await page.getByLabel('Admin token').count()).toBe(0);
    } finally {
      await off.close();
    }
  });
});
