import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import type { InboxHarness } from './harness.js';
import { startInspectorFixture } from './inspector-fixture.js';

// Issue 38: the inspector's geometry in Chromium at a phone's, a laptop's and a wide screen's size, measured
// with getBoundingClientRect: the detail of a tapped request is readable, nothing overflows sideways, no
// control is stretched, and an open settings panel leaves the request list on screen.

const WAIT_MS = 10_000;
/** A button, input or select taller than this has been stretched by its layout. */
const MAX_CONTROL_PX = 48;

/** The page globals the measurements use (this file is type-checked for Node, without the DOM library). */
interface Box {
  top: number;
  bottom: number;
  height: number;
}
interface El {
  getBoundingClientRect(): Box;
  getClientRects(): { length: number };
  tagName: string;
  type?: string;
  className: string;
  textContent: string | null;
}
interface PageGlobals {
  innerWidth: number;
  innerHeight: number;
  document: {
    scrollingElement: { scrollWidth: number };
    querySelector(selector: string): El | null;
    querySelectorAll(selector: string): Iterable<El>;
  };
}

const SIZES = [
  { name: 'phone', width: 390, height: 844, phone: true },
  { name: 'laptop', width: 1280, height: 800, phone: false },
  { name: 'wide', width: 1920, height: 1080, phone: false },
] as const;

/** Pixels of the element in the viewport, top to bottom; 0 when absent or hidden. */
const visibleHeight = (page: Page, selector: string): Promise<number> =>
  page.evaluate((s) => {
    const g = globalThis as unknown as PageGlobals;
    const el = g.document.querySelector(s);
    if (!el || el.getClientRects().length === 0) return 0;
    const r = el.getBoundingClientRect();
    return Math.max(0, Math.min(r.bottom, g.innerHeight) - Math.max(r.top, 0));
  }, selector);

const sidewaysOverflowPx = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return g.document.scrollingElement.scrollWidth - g.innerWidth;
  });

/** Each shown button, input (not a checkbox) and select taller than `maxPx`, as `tag.class "text" h`. */
const tallControls = (page: Page, maxPx: number): Promise<string[]> =>
  page.evaluate((max) => {
    const g = globalThis as unknown as PageGlobals;
    const found: string[] = [];
    for (const el of g.document.querySelectorAll('button, input, select')) {
      if (el.type === 'checkbox' || el.getClientRects().length === 0) continue;
      const h = el.getBoundingClientRect().height;
      if (h > max) found.push(`${el.tagName}.${el.className} "${el.textContent ?? ''}" ${Math.round(h)}px`);
    }
    return found;
  }, maxPx);

/** The request list's rows (the switcher's <option>s have the same role). */
const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');

const listTop = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const g = globalThis as unknown as PageGlobals;
    return g.document.querySelector('.request-list')?.getBoundingClientRect().top ?? Infinity;
  });

describe('issue 38: the inspector at 390x844, 1280x800 and 1920x1080 (Chromium)', () => {
  let h: InboxHarness;
  let base: string;
  let browser: Browser;
  let close: () => Promise<void>;
  let endpoint: { id: string; token: string; receiveUrl: string; name: string };
  const watched: WatchedPage[] = [];

  beforeAll(async () => {
    ({ h, base, browser, close } = await startInspectorFixture({}, 'memory'));
    endpoint = await h.createEndpoint('Shop webhooks');
    for (const [path, event] of [
      ['/orders', 'order.created'],
      ['/orders/1042', 'order.paid'],
      ['/refunds', 'refund.issued'],
    ] as const) {
      const body = JSON.stringify({ event, order: { id: 1042, total: '49.90', currency: 'EUR' } });
      await h.send('POST', `/api/hook/${endpoint.id}${path}`, {
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'Shopify-Captain-Hook' },
      });
    }
  }, 60_000);
  afterAll(() => close());
  afterEach(() => {
    const problems = watched.splice(0).flatMap((w) => w.problems);
    expect(problems).toEqual([]);
  });

  const open = async (size: (typeof SIZES)[number]): Promise<Page> => {
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height },
      ...(size.phone ? { isMobile: true, hasTouch: true } : {}),
    });
    const w = await openWatchedPage(context);
    w.page.setDefaultTimeout(WAIT_MS);
    watched.push(w);
    const remembered = JSON.stringify([endpoint]);
    await w.page.addInitScript((value) => {
      (
        globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }
      ).localStorage.setItem('portcullis.inbox.endpoints', value);
    }, remembered);
    await w.page.goto(`${base}/inspect/${endpoint.id}`);
    await rows(w.page).nth(2).waitFor();
    return w.page;
  };

  for (const size of SIZES) {
    it(`${size.name}: a tapped request's detail fills the screen; nothing overflows or is stretched`, async () => {
      const page = await open(size);
      expect.soft(await sidewaysOverflowPx(page)).toBeLessThanOrEqual(0);
      expect.soft(await tallControls(page, MAX_CONTROL_PX)).toEqual([]);
      const row = rows(page).filter({ hasText: '/orders/1042' });
      if (size.phone) await row.tap();
      else await row.click();
      await page.getByRole('tabpanel').getByText('order.paid').waitFor();
      expect.soft(await visibleHeight(page, '.detail')).toBeGreaterThanOrEqual(size.height * 0.5);
      expect.soft(await sidewaysOverflowPx(page)).toBeLessThanOrEqual(0);
      expect.soft(await tallControls(page, MAX_CONTROL_PX)).toEqual([]);
      if (size.phone) {
        // two views: the back control returns to the list, which is on screen again
        await page.getByRole('button', { name: /Requests/ }).tap();
        await rows(page).first().waitFor();
        expect.soft(await visibleHeight(page, '.request-list')).toBeGreaterThanOrEqual(3 * 52);
        expect.soft(await listTop(page)).toBeLessThan(size.height);
      }
    });

    if (!size.phone) {
      it(`${size.name}: the settings, signature and share panels fit as forms and leave the list on screen`, async () => {
        const page = await open(size);
        for (const [button, panel] of [
          ['Settings', 'form[aria-label=Retention]'],
          ['Set up', 'form[aria-label="Signature verification"]'],
          ['Share', 'section[aria-label="Share links"]'],
        ] as const) {
          await page.getByRole('button', { name: button, exact: true }).click();
          await page.locator(panel).waitFor();
          expect.soft(await tallControls(page, MAX_CONTROL_PX), `${button} open`).toEqual([]);
          expect.soft(await sidewaysOverflowPx(page), `${button} open`).toBeLessThanOrEqual(0);
          expect.soft(await listTop(page), `${button} open`).toBeLessThan(size.height - 2 * 52);
          expect.soft(await visibleHeight(page, '.request-list'), `${button} open`).toBeGreaterThan(2 * 52);
        }
      });
    }
  }
});
