// `npx tsx services/inbox/test/inspector-screenshots.ts`: the inbox README's screenshots of the web inspector.
// Starts an inbox on the memory store with the freshly built page, fills an endpoint with a few captures as
// webhook senders make them, and writes the main views at a laptop's, a wide screen's and a phone's size to
// services/inbox/docs/screenshots/ (the viewport only, to keep the files small).
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, quietLog } from '@portcullis/testing';
import type { Browser, Page } from 'playwright-core';
import { startInbox } from '../src/app.js';
import { loadSettings } from '../src/settings.js';
import { buildInspector } from '../src/web/build-inspector.js';
import { launchChromium } from './browser.js';

const OUT_DIR = join(import.meta.dirname, '../docs/screenshots');
const SECRET = 'whsec-screenshots';

interface Endpoint {
  id: string;
  token: string;
  name: string;
  receiveUrl: string;
}

async function send(url: string, init: RequestInit): Promise<unknown> {
  const r = await fetch(url, init);
  if (!r.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${r.status} ${await r.text()}`);
  return r.headers.get('content-type')?.startsWith('application/json') ? r.json() : r.text();
}

/** A push, a forged push, an order form and a health probe: what a GitHub-verified endpoint receives. */
async function fillEndpoint(base: string): Promise<Endpoint> {
  const json = { 'content-type': 'application/json' };
  const endpoint = (await send(`${base}/api/endpoints`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'GitHub → CI' }),
  })) as Endpoint;
  await send(`${base}/api/endpoints/${endpoint.id}/signature`, {
    method: 'PUT',
    headers: { ...json, authorization: `Bearer ${endpoint.token}` },
    body: JSON.stringify({ provider: 'github', secret: SECRET }),
  });
  const hook = (path: string): string => `${base}/api/hook/${endpoint.id}${path}`;
  const github = (body: string, secret: string): Record<string, string> => ({
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/5c4f5a1',
    'x-github-event': 'push',
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  });
  await send(hook('/health?probe=uptime'), { method: 'GET' });
  await send(hook('/shop/orders'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Shop/2.1' },
    body: 'order_id=1042&status=paid&amount=49.90&currency=EUR',
  });
  const forged = JSON.stringify({ ref: 'refs/heads/main', pusher: { name: 'mallory' } });
  await send(hook('/github'), { method: 'POST', headers: github(forged, 'guessed'), body: forged });
  const push = JSON.stringify({
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
    repository: { full_name: 'portcullis/edge', private: false },
    pusher: { name: 'ada', email: 'ada@example.com' },
    commits: [
      { id: '0d1a26e', message: 'inbox: the inspector on every screen', added: [], modified: ['README.md'] },
    ],
  });
  await send(hook('/github'), { method: 'POST', headers: github(push, SECRET), body: push });
  return endpoint;
}

async function openInspector(o: {
  browser: Browser;
  base: string;
  endpoint: Endpoint;
  viewport: { width: number; height: number };
}): Promise<Page> {
  const phone = o.viewport.width < 720;
  const context = await o.browser.newContext({
    viewport: o.viewport,
    colorScheme: 'light',
    locale: 'en-GB',
    timezoneId: 'UTC',
    ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : {}),
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const remembered = JSON.stringify([o.endpoint]);
  await page.addInitScript((value) => {
    const g = globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } };
    g.localStorage.setItem('portcullis.inbox.endpoints', value);
  }, remembered);
  await page.goto(`${o.base}/inspect/${o.endpoint.id}`);
  await page.locator('.live-live').waitFor();
  await page
    .getByRole('listbox', { name: /Captured requests/ })
    .getByRole('option')
    .nth(3)
    .waitFor();
  return page;
}

/** Opens the newest capture (the verified push) and waits for its body. */
async function openNewest(page: Page, phone: boolean): Promise<void> {
  const row = page
    .getByRole('listbox', { name: /Captured requests/ })
    .getByRole('option')
    .first();
  if (phone) await row.tap();
  else await row.click();
  await page.getByRole('tabpanel').getByText('portcullis/edge').waitFor();
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT_DIR, `${name}.png`) });
  process.stdout.write(`wrote ${join(OUT_DIR, `${name}.png`)}\n`);
}

const webDir = await mkdtemp(join(tmpdir(), 'inbox-web-'));
await buildInspector(webDir);
await mkdir(OUT_DIR, { recursive: true });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
// the memory store (no INBOX_REDIS_URL) and nothing else from this shell's environment
const inbox = await startInbox(
  loadSettings({
    INBOX_HOST: '127.0.0.1',
    INBOX_PORT: String(port),
    INBOX_PUBLIC_URL: base,
    INBOX_WEB_DIR: webDir,
  }),
  { log: quietLog },
);
const browser = await launchChromium();
try {
  const endpoint = await fillEndpoint(base);
  for (const [size, viewport] of [
    ['laptop', { width: 1280, height: 800 }],
    ['wide', { width: 1920, height: 1080 }],
  ] as const) {
    const page = await openInspector({ browser, base, endpoint, viewport });
    await openNewest(page, false);
    await shoot(page, `${size}-list-detail`);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    await page.getByRole('form', { name: 'Retention' }).waitFor();
    await shoot(page, `${size}-settings`);
    await page.context().close();
  }
  const phone = await openInspector({ browser, base, endpoint, viewport: { width: 390, height: 844 } });
  await shoot(phone, 'phone-list');
  await openNewest(phone, true);
  await shoot(phone, 'phone-detail');
} finally {
  await browser.close();
  await inbox.close();
  await rm(webDir, { recursive: true, force: true });
}
