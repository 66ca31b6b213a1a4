import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureDetail } from '../src/contract/capture-json.js';
import { INSPECTOR_CSP } from '../src/web/web-routes.js';
import { openWatchedPage, type WatchedPage } from './browser.js';
import type { InboxHarness } from './harness.js';
import { ARTIFACTS, startInspectorFixture } from './inspector-fixture.js';

// The web inspector in headless Chromium against a real inbox on Redis: what a user sees and does, end to
// end. Screenshots of the main views land in test-artifacts/inbox/.

/**
 * What the inspector page may transfer in scripts and stylesheets (compressed), in bytes: 20 KiB until issue
 * 38 added the phone's two views, opening by token and retention units (20.4 KiB), all on the first screen.
 */
const PAGE_WEIGHT_BUDGET = 22 * 1024;
const WAIT_MS = 10_000;
const run = promisify(execFile);

/**
 * The page globals the tests touch: this file is type-checked for Node, without the DOM library. Code for
 * the page goes as functions (Playwright calls them over the DevTools protocol); strings would be `eval`ed,
 * which the inspector's CSP rightly refuses.
 */
interface PageGlobals {
  marker?: number;
  pwned?: number;
  innerWidth: number;
  document: { documentElement: { scrollWidth: number } };
  localStorage: { setItem(key: string, value: string): void };
}

describe('web inspector in Chromium', () => {
  let h: InboxHarness;
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  const contexts: BrowserContext[] = [];
  const watched: WatchedPage[] = [];

  beforeAll(async () => {
    ({ h, base, browser, close } = await startInspectorFixture({ INBOX_EGRESS_ALLOW_PRIVATE: 'true' }));
  }, 60_000);
  afterAll(() => close());
  afterEach(() => {
    // every page of the test stayed free of script errors and CSP violations
    const problems = watched.splice(0).flatMap((w) => w.problems);
    expect(problems).toEqual([]);
  });

  const newPage = async (options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
    contexts.push(context);
    const w = await openWatchedPage(context);
    watched.push(w);
    return w.page;
  };
  const endpointIdOf = (page: Page): string => {
    const m = /\/inspect\/([A-Za-z0-9_-]+)$/.exec(page.url());
    if (!m?.[1]) throw new Error(`not an endpoint page: ${page.url()}`);
    return m[1];
  };
  const createFromLanding = async (page: Page): Promise<string> => {
    await page.goto(`${base}/`);
    await page.locator('main.landing').getByRole('button', { name: 'New endpoint' }).click();
    await page.waitForURL(/\/inspect\//);
    await page.locator('.live-live').waitFor({ timeout: WAIT_MS });
    return endpointIdOf(page);
  };
  /** The request list's rows (the switcher's <option>s have the same role). */
  const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');
  const rowCount = (page: Page): Promise<number> => rows(page).count();
  const waitForRows = (page: Page, n: number): Promise<void> =>
    rows(page)
      .nth(n - 1)
      .waitFor({ timeout: WAIT_MS });
  const adminRead = async (endpointId: string, requestId: string): Promise<CaptureDetail> => {
    const r = await h.api('GET', `/api/endpoints/${endpointId}/requests/${requestId}`, {
      token: 'admin-token-for-tests-0123456789abcdef',
    });
    return r.json as CaptureDetail;
  };

  it('serves the page under a strict CSP, with cached assets, within the page-weight budget', async () => {
    const page = await newPage();
    const transferred: Array<{ url: string; bytes: number }> = [];
    page.on('requestfinished', (request) => {
      const type = request.resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      void request.sizes().then((s) => transferred.push({ url: request.url(), bytes: s.responseBodySize }));
    });
    const response = await page.goto(`${base}/`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toBe(INSPECTOR_CSP);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['cache-control']).toBe('no-cache');
    await page.getByRole('heading', { name: 'Webhook inbox' }).waitFor();
    await page.locator('script[type=module]').waitFor({ state: 'attached' });
    await expect.poll(() => transferred.length).toBe(2);
    const total = transferred.reduce((sum, t) => sum + t.bytes, 0);
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThanOrEqual(PAGE_WEIGHT_BUDGET);
    const asset = await fetch(transferred[0]?.url ?? '', { headers: { 'accept-encoding': 'br' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-encoding')).toBe('br');
  });

  it('creates an endpoint, shows captures live, and each tab of one', async () => {
    const page = await newPage();
    const id = await createFromLanding(page);
    await page.evaluate(() => ((globalThis as unknown as PageGlobals).marker = 1));
    const body = JSON.stringify({ event: 'order.created', order: { id: 42, items: ['a', 'b'] } });
    await h.send('POST', `/api/hook/${id}/orders?x=1&x=2`, {
      rawHeaders: [
        'Content-Type',
        'application/json',
        'X-Hub-Signature-256',
        'sha256=abc',
        'x-dup',
        'first',
        'X-DUP',
        'second',
      ],
      body,
    });
    await waitForRows(page, 1);
    await h.send('PUT', `/api/hook/${id}`, { body: 'plain text', headers: { 'content-type': 'text/plain' } });
    await waitForRows(page, 2);
    // live: the rows came without a reload
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).marker)).toBe(1);
    expect(await rows(page).first().textContent()).toContain('PUT');

    await rows(page).filter({ hasText: '/orders?x=1&x=2' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByText('"order.created"').waitFor();
    await page.getByRole('tab', { name: /Headers/ }).click();
    const headerCells = await panel.locator('tbody th').allTextContents();
    expect(headerCells.slice(1, 5)).toEqual(['Content-Type', 'X-Hub-Signature-256', 'x-dup', 'X-DUP']);
    expect(await panel.locator('tbody td').allTextContents()).toContain('second');
    // arrow keys move between tabs
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Query' }).getAttribute('aria-selected')).toBe('true');
    expect(await panel.locator('pre').textContent()).toBe('?x=1&x=2');
    expect(await panel.locator('tbody td').allTextContents()).toEqual(['1', '2']);
    await page.getByRole('tab', { name: 'Raw' }).click();
    expect(await panel.locator('pre').textContent()).toContain(
      `POST /api/hook/${id}/orders?x=1&x=2 HTTP/1.1`,
    );
    // an anonymous endpoint never forwards: no Forwarding tab
    expect(await page.getByRole('tab', { name: 'Forwarding' }).count()).toBe(0);
    await page.getByRole('tab', { name: 'Body' }).click();
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-desktop.png') });
  });

  it('shows a captured script as text: it never runs', async () => {
    const page = await newPage();
    const id = await createFromLanding(page);
    const hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><b>bold?</b>';
    await h.send('POST', `/api/hook/${id}`, { body: hostile, headers: { 'content-type': 'text/html' } });
    await h.send('POST', `/api/hook/${id}/json`, {
      body: JSON.stringify({ html: hostile }),
      headers: { 'content-type': 'application/json' },
    });
    await waitForRows(page, 2);
    for (const option of await rows(page).all()) {
      await option.click();
      await page.getByRole('tabpanel').getByText('window.pwned = 1', { exact: false }).first().waitFor();
      await page.getByRole('tab', { name: 'Raw' }).click();
      await page.getByRole('tabpanel').getByText('<script>', { exact: false }).first().waitFor();
      await page.getByRole('tab', { name: 'Body' }).click();
    }
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('b').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1); // the inspector's own
  });

  it('copies a request as cURL that re-sends the same bytes, downloads the body, and replays it', async () => {
    const page = await newPage({ acceptDownloads: true });
    const id = await createFromLanding(page);
    const secret = 'inspector-secret';
    const body = Buffer.concat([Buffer.from(`{"it's":"é"}\r\n`), Buffer.from([0xff, 0x00, 0xfe, 0x27])]);
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const sent = await h.send('POST', `/api/hook/${id}/gh?delivery=1`, {
      rawHeaders: [
        'X-GitHub-Event',
        'push',
        'X-Hub-Signature-256',
        signature,
        'Content-Type',
        'application/json',
      ],
      body,
    });
    const firstId = (sent.json as { requestId: string }).requestId;
    await waitForRows(page, 1);
    await rows(page).first().click();

    await page.getByRole('button', { name: 'Copy as cURL' }).click();
    const command = await page.getByLabel('cURL command').inputValue();
    await run('bash', ['-c', `${command} --silent --show-error --fail`]);
    await waitForRows(page, 2);
    const again = await adminRead(id, (await h.app.store.listCaptures(id, { limit: 1 }))[0]?.id ?? '');
    const original = await adminRead(id, firstId);
    expect(again.bodySha256).toBe(original.bodySha256);
    expect(again.url).toBe(original.url);
    const named = (d: CaptureDetail) =>
      d.headers
        .map(([n]) => n)
        .filter((n) => !/^(host|user-agent|accept|content-length|connection)$/i.test(n));
    expect(named(again)).toEqual(named(original));

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download body' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${firstId}.bin`);
    expect((await readFile(await download.path())).equals(body)).toBe(true);

    const received: Array<{ url: string; body: Buffer; valid: boolean }> = [];
    const target: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got = Buffer.concat(chunks);
        const expected = `sha256=${createHmac('sha256', secret).update(got).digest('hex')}`;
        received.push({
          url: req.url ?? '',
          body: got,
          valid: req.headers['x-hub-signature-256'] === expected,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = target.address() as AddressInfo;
      await page.getByLabel('Replay to').fill(`http://127.0.0.1:${port}/hooks`);
      await page.getByRole('button', { name: 'Replay', exact: true }).click();
      await page.getByText(`http://127.0.0.1:${port}/hooks answered 204`).waitFor({ timeout: WAIT_MS });
      expect(received).toEqual([
        { url: '/hooks/gh?delivery=1', body: expect.any(Buffer) as unknown, valid: true },
      ]);
      expect(received[0]?.body.equals(body)).toBe(true);
    } finally {
      target.close();
    }
  });

  it('renames the endpoint in place and switches between remembered endpoints', async () => {
    const page = await newPage();
    const first = await createFromLanding(page);
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Endpoint name').fill('Stripe staging');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Stripe staging' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Stripe staging' }).waitFor();

    await page.locator('.topbar').getByRole('button', { name: 'New endpoint' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(first));
    await page.getByRole('heading', { name: 'Unnamed endpoint' }).waitFor();
    const second = endpointIdOf(page);
    const options = await page.locator('#switch-endpoint option').allTextContents();
    expect(options).toContain(`Stripe staging (${first.slice(0, 6)}…)`);
    expect(options).toContain(second);
    await page.selectOption('#switch-endpoint', first);
    await page.waitForURL(`${base}/inspect/${first}`);
    await page.getByRole('heading', { name: 'Stripe staging' }).waitFor();
    // back goes to the endpoint before
    await page.goBack();
    await page.getByRole('heading', { name: 'Unnamed endpoint' }).waitFor();
  });

  it('signs up with the browser endpoints claimed, shows them in a second browser, and 404s a third account', async () => {
    const a = await newPage();
    const id = await createFromLanding(a);
    await h.send('POST', `/api/hook/${id}/claimed`, { body: 'mine' });
    await waitForRows(a, 1);
    await a.locator('summary', { hasText: 'Sign in' }).click();
    await a.getByLabel('User name').fill('ada');
    await a.getByLabel('Password').fill('correct horse battery');
    expect(await a.getByLabel(/Move this browser's 1 endpoint/).isChecked()).toBe(true);
    await a.getByRole('button', { name: 'Create account' }).click();
    await a.getByText('Signed in as').waitFor();
    await a.locator('.badge.kind-account').waitFor({ timeout: WAIT_MS });
    await a.screenshot({ path: join(ARTIFACTS, 'inspector-signed-in.png') });

    const b = await newPage();
    await b.goto(`${base}/`);
    await b.locator('summary', { hasText: 'Sign in' }).click();
    await b.getByLabel('User name').fill('ADA');
    await b.getByLabel('Password').fill('correct horse battery');
    await b.getByRole('button', { name: 'Sign in', exact: true }).click();
    await b.getByText('Signed in as').waitFor();
    await b.locator('#switch-endpoint optgroup[label=Account] option').first().waitFor({ state: 'attached' });
    await b.selectOption('#switch-endpoint', id);
    await waitForRows(b, 1);
    expect(await rows(b).first().textContent()).toContain('/claimed');
    // an endpoint made while signed in belongs to the account at once
    await b.locator('.topbar').getByRole('button', { name: 'New endpoint' }).click();
    await b.waitForURL((url) => !url.pathname.endsWith(id));
    await b.locator('.badge.kind-account').waitFor();

    const c = await newPage();
    await c.goto(`${base}/`);
    await c.locator('summary', { hasText: 'Sign in' }).click();
    await c.getByLabel('User name').fill('grace');
    await c.getByLabel('Password').fill('another battery');
    await c.getByRole('button', { name: 'Create account' }).click();
    await c.getByText('Signed in as').waitFor();
    const denied = await c.request.get(`${base}/api/endpoints/${id}`);
    expect(denied.status()).toBe(404);
    await c.goto(`${base}/inspect/${id}`);
    await c.getByText('Your account has no endpoint with this id.').waitFor();
    // signing out in the first browser leaves the second signed in
    await a.getByRole('button', { name: 'Sign out' }).click();
    await a.locator('summary', { hasText: 'Sign in' }).waitFor();
    await b.reload();
    await b.getByText('Signed in as').waitFor();
  });

  it('is usable on a phone-sized screen', async () => {
    const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const id = await createFromLanding(page);
    await h.send('POST', `/api/hook/${id}/mobile`, {
      body: JSON.stringify({ ok: true }),
      headers: { 'content-type': 'application/json' },
    });
    await waitForRows(page, 1);
    await rows(page).first().tap();
    await page.getByRole('tabpanel').getByText('true').waitFor();
    const overflow = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return g.document.documentElement.scrollWidth - g.innerWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-phone.png'), fullPage: true });
    // the detail is a view of its own (issue-38-inspector-layout.test.ts measures it): Back shows the list
    expect(await page.getByRole('listbox').isVisible()).toBe(false);
    await page.getByRole('button', { name: '← Requests' }).tap();
    expect(await page.getByRole('listbox').isVisible()).toBe(true);
  });

  it('keeps a big inbox light: only visible rows exist, history pages in as the list scrolls', async () => {
    const { id, token, receiveUrl } = await h.createEndpoint('big');
    const total = 450;
    for (let i = 0; i < total; i++) await h.send('POST', `/api/hook/${id}/n/${i}`, { body: String(i) });
    const page = await newPage();
    const remembered = JSON.stringify([{ id, token, name: 'big', receiveUrl }]);
    await page.addInitScript((value) => {
      (globalThis as unknown as PageGlobals).localStorage.setItem('portcullis.inbox.endpoints', value);
    }, remembered);
    await page.goto(`${base}/inspect/${id}`);
    await waitForRows(page, 1);
    expect(await rowCount(page)).toBeLessThan(60);
    const listbox = page.getByRole('listbox');
    await listbox.focus();
    // End moves to the last row loaded; the list then asks for the next page, until all are there
    await expect
      .poll(
        async () => {
          await page.keyboard.press('End');
          return page.locator('[role=option][aria-selected=true]').getAttribute('aria-posinset');
        },
        { timeout: WAIT_MS, interval: 200 },
      )
      .toBe(String(total));
    expect(await rowCount(page)).toBeLessThan(60);
    expect(await page.locator('[role=option][aria-selected=true] .path').textContent()).toBe('/n/0');
    await page.keyboard.press('Home');
    expect(await page.locator('[role=option][aria-selected=true] .path').textContent()).toBe(
      `/n/${total - 1}`,
    );
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('[role=option][aria-selected=true] .path').textContent()).toBe(
      `/n/${total - 2}`,
    );
  });
});
