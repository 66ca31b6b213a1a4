import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import type { InboxHarness } from './harness.js';
import { startInspectorFixture } from './inspector-fixture.js';

// Issue 38: an endpoint made with `curl -X POST …/api/endpoints` opened in the inspector by pasting its token,
// what the page says to a browser without the token, a share link pasted into a tab already on the endpoint,
// and no forwarding controls where nothing forwards. Chromium against a real inbox on the memory store.

const WAIT_MS = 10_000;

/** The page globals the tests touch (this file is type-checked for Node, without the DOM library). */
interface PageGlobals {
  marker?: number;
  localStorage: { getItem(key: string): string | null };
}

describe('issue 38: opening an endpoint by its token (Chromium)', () => {
  let h: InboxHarness;
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  const watched: WatchedPage[] = [];

  beforeAll(async () => {
    ({ h, base, browser, close } = await startInspectorFixture({}, 'memory'));
  }, 60_000);
  afterAll(() => close());
  afterEach(() => {
    const problems = watched.splice(0).flatMap((w) => w.problems);
    expect(problems).toEqual([]);
  });

  const newPage = async (): Promise<Page> => {
    const w = await openWatchedPage(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
    w.page.setDefaultTimeout(WAIT_MS);
    watched.push(w);
    return w.page;
  };
  const openForm = (page: Page) => page.getByRole('form', { name: 'Open an endpoint by its token' });
  const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');
  /** As the README's curl makes one: anonymous, answered with its token; with one capture. */
  const curlEndpoint = async (path: string) => {
    const e = await h.createEndpoint();
    await h.send('POST', `/api/hook/${e.id}${path}`, {
      body: '{"event":"ping"}',
      headers: { 'content-type': 'application/json' },
    });
    return e;
  };

  it('opens from the landing page with the pasted receive URL and token, and remembers it', async () => {
    const e = await curlEndpoint('/from-curl');
    const page = await newPage();
    await page.goto(`${base}/`);
    const form = openForm(page);
    await form.getByLabel('Endpoint id or receive URL').fill(e.receiveUrl);
    await form.getByLabel('Token').fill('not-the-token');
    await form.getByRole('button', { name: 'Open' }).click();
    await form.getByRole('alert').getByText('The inbox refused this token').waitFor();
    // copied with the JSON answer's quotes
    await form.getByLabel('Token').fill(`"${e.token}"`);
    await form.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${base}/inspect/${e.id}`);
    await rows(page).filter({ hasText: '/from-curl' }).waitFor();
    const stored = await page.evaluate(() =>
      (globalThis as unknown as PageGlobals).localStorage.getItem('portcullis.inbox.endpoints'),
    );
    expect(JSON.parse(stored ?? '[]')).toEqual([
      { id: e.id, token: e.token, name: '', receiveUrl: e.receiveUrl },
    ]);
    await page.reload();
    await rows(page).filter({ hasText: '/from-curl' }).waitFor();
  });

  it('asks a browser without the token for it, instead of saying to sign in, and opens in place', async () => {
    const e = await curlEndpoint('/pasted');
    const page = await newPage();
    await page.goto(`${base}/inspect/${e.id}`);
    const alert = page.locator('main').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('This browser has no token for this endpoint.');
    expect(await alert.textContent()).toContain('paste it here');
    expect(await alert.textContent()).not.toContain('does not exist');
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 1));
    await openForm(page).getByLabel('Token').fill(e.token);
    await openForm(page).getByRole('button', { name: 'Open' }).click();
    await rows(page).filter({ hasText: '/pasted' }).waitFor();
    await page.getByRole('button', { name: 'Share' }).waitFor();
    // the same page, not a reload
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker)).toBe(1);
    expect(page.url()).toBe(`${base}/inspect/${e.id}`);
  });

  it('opens a share link pasted into a tab already on the endpoint, without a reload', async () => {
    const e = await curlEndpoint('/shared');
    const share = await h.api('POST', `/api/endpoints/${e.id}/shares`, { token: e.token });
    const shareUrl = (share.json as { url: string }).url;
    const page = await newPage();
    await page.goto(`${base}/inspect/${e.id}`);
    await page.getByText('This browser has no token for this endpoint.').waitFor();
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 1));
    // the address bar's paste: only the fragment differs, so the page stays and hears hashchange
    await page.goto(shareUrl);
    await rows(page).filter({ hasText: '/shared' }).waitFor();
    await page.getByText('read-only link').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker)).toBe(1);
  });

  it('shows no forwarding filter or tab on an anonymous endpoint, and no empty signature badge', async () => {
    const e = await curlEndpoint('/plain');
    const page = await newPage();
    await page.goto(`${base}/`);
    await openForm(page).getByLabel('Endpoint id or receive URL').fill(e.id);
    await openForm(page).getByLabel('Token').fill(e.token);
    await openForm(page).getByRole('button', { name: 'Open' }).click();
    const row = rows(page).filter({ hasText: '/plain' });
    await row.click();
    await page.getByRole('tab', { name: 'Body' }).waitFor();
    expect(await page.getByRole('tab').allTextContents()).toEqual(['Body', 'Headers (4)', 'Query', 'Raw']);
    expect(await page.getByRole('search').getByLabel('Forwarding').count()).toBe(0);
    expect(await page.getByRole('search').getByLabel('Method').count()).toBe(1);
    expect(await row.locator('.sig').count()).toBe(0);
    expect(await page.locator('.detail .sig').count()).toBe(0);
    expect(await row.locator('.size').textContent()).toBe('16 B');
  });
});
