import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import { ADMIN_TOKEN, waitUntil, type InboxHarness } from './harness.js';
import { ARTIFACTS, startInspectorFixture } from './inspector-fixture.js';

// Issue 19: an endpoint's custom response and retention, set in the inspector in Chromium against a real
// inbox on Redis, and the receive URL answering with them.

const WAIT_MS = 10_000;

describe('endpoint settings in the inspector (Chromium)', () => {
  let h: InboxHarness;
  let base: string;
  let close: () => Promise<void>;
  let watched: WatchedPage;
  let page: Page;

  beforeAll(async () => {
    let browser: Browser;
    ({ h, base, browser, close } = await startInspectorFixture({
      INBOX_RETENTION_MAX_REQUESTS: '500',
      INBOX_RETENTION_MAX_AGE: '168h',
    }));
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    watched = await openWatchedPage(context);
    page = watched.page;
    page.setDefaultTimeout(WAIT_MS);
  }, 60_000);
  afterAll(() => close());

  it('sets a custom response and a retention; the receive URL answers with it', async () => {
    await page.goto(`${base}/`);
    await page.locator('main.landing').getByRole('button', { name: 'New endpoint' }).click();
    await page.waitForURL(/\/inspect\//);
    await page.locator('.live-live').waitFor({ timeout: WAIT_MS });
    const id = /\/inspect\/([A-Za-z0-9_-]+)$/.exec(page.url())?.[1] ?? '';
    const summary = page.locator('.settings-summary');
    await expect
      .poll(() => summary.textContent())
      .toContain('Keeps the newest 500, 7 days; answers 200 {"ok":true}');

    await page.getByRole('button', { name: 'Settings' }).click();
    const response = page.getByRole('form', { name: 'Response' });
    await response.getByLabel('Headers').fill('Connection: close');
    await response.getByRole('button', { name: 'Save response' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain("response: headers[0].name: 'Connection' cannot be set");

    await response.getByLabel('Status').fill('201');
    await response.getByLabel('Headers').fill('Content-Type: text/plain\nX-Slack-Ok: yes');
    await response.getByLabel('Body').fill('{{body.challenge}}');
    await response.getByRole('button', { name: 'Save response' }).click();
    await expect.poll(() => summary.textContent()).toContain('answers 201');

    await page.getByRole('button', { name: 'Settings' }).click();
    const retention = page.getByRole('form', { name: 'Retention' });
    await retention.getByLabel('Keep the newest').fill('3');
    // the age in human units, sent as the API's seconds
    expect(await retention.getByLabel('For', { exact: true }).inputValue()).toBe('7');
    expect(await retention.getByLabel('Retention unit').inputValue()).toBe('days');
    await retention.getByLabel('For', { exact: true }).fill('90');
    await retention.getByLabel('Retention unit').selectOption('minutes');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => summary.textContent()).toContain('Keeps the newest 3, 90 min; answers 201');
    const stored = await h.api('GET', `/api/endpoints/${id}`, { token: ADMIN_TOKEN });
    expect(stored.json).toMatchObject({ retention: { maxRequests: 3, maxAgeSeconds: 5400 } });

    const send = () =>
      h.send('POST', `/api/hook/${id}`, {
        headers: { 'content-type': 'application/json' },
        body: '{"type":"url_verification","challenge":"c-42"}',
      });
    // the capture path remembers an endpoint for up to a second
    await waitUntil(async () => (await send()).status === 201);
    const r = await send();
    expect([r.status, r.body.toString(), r.headers['x-slack-ok']]).toEqual([201, 'c-42', 'yes']);
    await page
      .getByRole('listbox', { name: /Captured requests/ })
      .getByRole('option')
      .nth(1)
      .waitFor({ timeout: WAIT_MS });

    // a reload reads both back from the server
    await page.reload();
    await expect
      .poll(() => page.locator('.settings-summary').textContent())
      .toContain('Keeps the newest 3, 90 min; answers 201');
    await page.getByRole('button', { name: 'Settings' }).click();
    expect(await retention.getByLabel('For', { exact: true }).inputValue()).toBe('90');
    expect(await retention.getByLabel('Retention unit').inputValue()).toBe('minutes');
    await page.screenshot({
      path: join(ARTIFACTS, 'endpoint-settings.png'),
    });
    expect(watched.problems).toEqual([]);
  });
});
