import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWatchedPage, type WatchedPage } from './browser.js';
import type { InboxHarness } from './harness.js';
import { ARTIFACTS, startInspectorFixture } from './inspector-fixture.js';

// Signature badges in the inspector, in headless Chromium against a real inbox on Redis: the preset set
// through the page's form, then verified, failed and not checked captures in the list and the detail view.

const WAIT_MS = 10_000;
const SECRET = 'inspector-github-secret';

describe('signature badges in the inspector (Chromium)', () => {
  let h: InboxHarness;
  let base: string;
  let close: () => Promise<void>;
  let w: WatchedPage;

  beforeAll(async () => {
    let browser: Browser;
    ({ h, base, browser, close } = await startInspectorFixture({ INBOX_SECRETS_KEY: 'ab'.repeat(32) }));
    w = await openWatchedPage(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
  }, 60_000);
  afterAll(() => close());

  const newEndpoint = async (page: Page): Promise<string> => {
    await page.goto(`${base}/`);
    await page.locator('main.landing').getByRole('button', { name: 'New endpoint' }).click();
    await page.waitForURL(/\/inspect\//);
    await page.locator('.live-live').waitFor({ timeout: WAIT_MS });
    const id = /\/inspect\/([A-Za-z0-9_-]+)$/.exec(page.url())?.[1];
    if (!id) throw new Error(`not an endpoint page: ${page.url()}`);
    return id;
  };
  const rows = (page: Page) => page.getByRole('listbox', { name: /Captured requests/ }).getByRole('option');
  const github = (body: string, secret: string): string[] => [
    'Content-Type',
    'application/json',
    'X-Hub-Signature-256',
    `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  ];

  it('sets a GitHub preset in the form and shows verified, failed and not checked captures', async () => {
    const page = w.page;
    const plain = await newEndpoint(page);
    await h.send('POST', `/api/hook/${plain}/unchecked`, { rawHeaders: github('{}', SECRET), body: '{}' });
    await rows(page).first().waitFor({ timeout: WAIT_MS });
    // without a preset, "not checked" says nothing: no badge
    expect(await rows(page).first().locator('.sig').count()).toBe(0);
    expect(await page.locator('.sig-setting').textContent()).toContain('Signatures: not checked');

    const id = await newEndpoint(page);
    await page.getByRole('button', { name: 'Set up' }).click();
    const form = page.getByRole('form', { name: 'Signature verification' });
    await form.getByLabel('Provider').selectOption('github');
    await form.getByLabel('Secret').fill(SECRET);
    await form.getByRole('button', { name: 'Save' }).click();
    await page
      .locator('.sig-setting')
      .getByText('GitHub (X-Hub-Signature-256)')
      .waitFor({ timeout: WAIT_MS });
    const shown = await h.api('GET', `/api/endpoints/${id}`, {
      token: 'admin-token-for-tests-0123456789abcdef',
    });
    expect(shown.json).toMatchObject({ signature: { provider: 'github', secretSet: true } });

    const body = '{"action":"opened"}';
    await h.send('POST', `/api/hook/${id}/good`, { rawHeaders: github(body, SECRET), body });
    await h.send('POST', `/api/hook/${id}/forged`, { rawHeaders: github(body, 'guessed'), body });
    await rows(page).nth(1).waitFor({ timeout: WAIT_MS });
    const badge = (path: string) => rows(page).filter({ hasText: path }).locator('.sig');
    expect(await badge('/good').textContent()).toBe('verified');
    expect(await badge('/forged').textContent()).toBe('failed');

    await rows(page).filter({ hasText: '/forged' }).click();
    const detail = page.getByRole('region', { name: 'Request detail' });
    expect(await detail.locator('.detail-head .sig').textContent()).toBe('failed');
    expect(await detail.locator('.sig-reason').textContent()).toBe('the signature does not match the body');
    await page.screenshot({ path: join(ARTIFACTS, 'inspector-signatures.png') });
    await rows(page).filter({ hasText: '/good' }).click();
    await detail.locator('.detail-head .sig-verified').waitFor({ timeout: WAIT_MS });
    expect(await detail.locator('.sig-reason').count()).toBe(0);

    await page.getByRole('button', { name: 'Change' }).click();
    await page.getByRole('button', { name: 'Stop checking' }).click();
    await page.locator('.sig-setting').getByText('Signatures: not checked').waitFor({ timeout: WAIT_MS });
    expect(w.problems).toEqual([]);
  });
});
